// The RMSNorm study, end to end: the reference study's three implementations
// (op by op, torch.rms_norm, compiled) profiled on the simulated NeuronCore,
// their key_averages() tables, a side-by-side comparison with the measured
// figures, a numerical check and a device breakdown per implementation.
//
//   bazel run //benchmarks:rmsnorm -- [--config trn2] [--shape 4,512] [--dtype bf16]
//       [--steps 4] [--out DIR] [--json] [--no-device-capture]
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "backend/ops.h"
#include "benchmarks/rmsnorm/implementations.h"
#include "benchmarks/rmsnorm/report.h"
#include "benchmarks/rmsnorm/study_runner.h"
#include "runtime/runtime.h"

namespace nsim {
namespace study {
namespace {

constexpr const char* kUsage =
    "usage: rmsnorm [--config NAME|PATH] [--shape D0,D1,...] [--dtype bf16|f32|f16] [--steps N]\n"
    "               [--out DIR] [--json] [--no-device-capture]\n";

struct Flags {
  StudyOptions study;
  bool json = false;
};

std::vector<int64_t> ParseShape(const std::string& s) {
  std::vector<int64_t> shape;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    size_t used = 0;
    const long long v = std::stoll(item, &used);
    if (used != item.size() || v <= 0) throw std::invalid_argument("bad --shape '" + s + "'");
    shape.push_back(v);
  }
  if (shape.empty()) throw std::invalid_argument("bad --shape '" + s + "'");
  return shape;
}

at::ScalarType ParseDtype(const std::string& s) {
  if (s == "bf16" || s == "bfloat16") return at::ScalarType::BFloat16;
  if (s == "f32" || s == "float32") return at::ScalarType::Float;
  if (s == "f16" || s == "float16") return at::ScalarType::Half;
  throw std::invalid_argument("bad --dtype '" + s + "' (bf16, f32 or f16)");
}

// `bazel run` starts in the runfiles tree; a relative --out means the user's directory.
std::string UserPath(const std::string& p) {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (p.empty() || p[0] == '/' || wd == nullptr) return p;
  return std::string(wd) + "/" + p;
}

Flags Parse(int argc, char** argv) {
  Flags f;
  f.study.out_dir = "rmsnorm_profile";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument("missing value after " + a);
      return argv[++i];
    };
    if (a == "--config") f.study.config = value();
    else if (a == "--shape") f.study.shape = ParseShape(value());
    else if (a == "--dtype") f.study.dtype = ParseDtype(value());
    else if (a == "--steps") f.study.steps = std::stoi(value());
    else if (a == "--out") f.study.out_dir = value();
    else if (a == "--json") f.json = true;
    else if (a == "--no-device-capture") f.study.device_capture = false;
    else throw std::invalid_argument("unknown argument " + a);
  }
  if (f.study.steps < 4) throw std::invalid_argument("--steps must be >= 4 (wait=2, warmup=1, active=1)");
  f.study.out_dir = UserPath(f.study.out_dir);
  if (f.study.config.find('/') != std::string::npos) f.study.config = UserPath(f.study.config);
  return f;
}

int Main(int argc, char** argv) {
  const Flags flags = Parse(argc, argv);
  const auto wall_start = std::chrono::steady_clock::now();
  rt::Runtime::Get().Configure(flags.study.config);
  std::vector<ImplResult> results;
  for (const Implementation& impl : StudyImplementations(flags.study)) {
    results.push_back(RunImplementation(impl.name, impl.fn, flags.study));
  }
  const Agreement agreement = CheckAgreement(results, flags.study);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const HardwareConfig& config = rt::Runtime::Get().core(0).config();
  if (flags.json) {
    std::cout << ReportJson(results, agreement, flags.study, config, wall_s).dump(2) << "\n";
  } else {
    std::cout << ReportText(results, agreement, flags.study, config, wall_s);
  }
  return agreement.ok ? 0 : 1;
}

}  // namespace
}  // namespace study
}  // namespace nsim

int main(int argc, char** argv) {
  try {
    return nsim::study::Main(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::cerr << "rmsnorm: " << e.what() << "\n" << nsim::study::kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "rmsnorm: " << e.what() << "\n";
    return 1;
  }
}
