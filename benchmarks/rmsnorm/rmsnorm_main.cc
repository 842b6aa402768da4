// The RMSNorm study, end to end: the reference study's three implementations
// (op by op, torch.rms_norm, compiled) profiled on the simulated NeuronCore,
// their key_averages() tables, a side-by-side comparison with the measured
// figures, a numerical check and a device breakdown per implementation.
// `rmsnorm --help` lists the flags; exit codes 0 ok, 1 error or numerical
// mismatch, 2 usage, 130 interrupted (the files written so far are complete).
#include <chrono>
#include <iostream>

#include <nlohmann/json.hpp>

#include "backend/ops.h"
#include "benchmarks/rmsnorm/implementations.h"
#include "benchmarks/rmsnorm/report.h"
#include "benchmarks/rmsnorm/study_compare.h"
#include "benchmarks/rmsnorm/study_limits.h"
#include "benchmarks/rmsnorm/study_page.h"
#include "benchmarks/rmsnorm/study_runner.h"
#include "profiler/neuron_profiler.h"
#include "runtime/errors.h"
#include "runtime/runtime.h"
#include "tools/cli/cli.h"
#include "tools/cli/flag_values.h"
#include "tools/cli/interrupt.h"
#include "tools/cli/progress.h"
#include "tools/profile_tables.h"

namespace nsim {
namespace study {
namespace {

// The schedule wait=2, warmup=1, active=1 records every 4th step; longer runs
// are capped so a typo cannot run for hours.
constexpr int kScheduleCycle = 4;
constexpr int kMaxSteps = 4000;
// Physical cores per logical core: at most a chip's (trn2: 8); the runtime
// also requires a divisor of the config's chip.cores.
constexpr int kMaxLnc = 8;

struct Flags {
  StudyOptions study;
  std::string shape = "4,512", dtype = "bf16", steps = "4", lnc = "1", compare;
  bool json = false, device_capture = false, no_device_capture = false;
};

at::ScalarType ParseDtype(const std::string& s) {
  if (s == "bf16" || s == "bfloat16") return at::ScalarType::BFloat16;
  if (s == "f32" || s == "float32") return at::ScalarType::Float;
  if (s == "f16" || s == "float16") return at::ScalarType::Half;
  throw cli::UsageError("--dtype '" + s + "': expected bf16, f32 or f16");
}

void Finish(Flags& f) {
  f.study.shape = cli::ParseShape("--shape", f.shape);
  f.study.steps = cli::ParseIntFlag("--steps", f.steps, kScheduleCycle, kMaxSteps);
  f.study.dtype = ParseDtype(f.dtype);
  f.study.lnc = cli::ParseIntFlag("--lnc", f.lnc, 1, kMaxLnc);
  if (f.study.steps % kScheduleCycle != 0) {
    throw cli::UsageError("--steps " + std::to_string(f.study.steps) + ": expected a multiple of " +
                          std::to_string(kScheduleCycle) +
                          " (the schedule wait=2, warmup=1, active=1 records step 4, 8, ...; other counts end "
                          "outside a recorded window)");
  }
  if (f.device_capture && f.no_device_capture) throw cli::UsageError("--device-capture and --no-device-capture conflict");
  // Comparisons default to no capture, so the change asked about is not
  // hidden under the per-execution capture cost (README "What-if comparisons").
  f.study.device_capture = f.compare.empty() ? !f.no_device_capture : f.device_capture;
  f.study.out_dir = cli::UserPath(f.study.out_dir);
  f.study.config = cli::ConfigArg(f.study.config);
}

std::vector<ImplResult> RunStudy(const StudyOptions& o) {
  rt::Runtime::Get().Configure(o.config);
  try {
    rt::Runtime::Get().set_lnc(o.lnc);
  } catch (const rt::RuntimeError& e) {
    throw cli::UsageError(std::string("--lnc ") + std::to_string(o.lnc) + ": " + e.what());
  }
  const std::string too_large = StudyShapeProblem(o, rt::Runtime::Get().core(0).config());
  if (!too_large.empty()) throw cli::UsageError(too_large);
  rt::Runtime::Get().set_timing_only(o.timing_only);
  std::vector<ImplResult> results;
  for (const Implementation& impl : StudyImplementations(o)) {
    results.push_back(RunImplementation(impl.name, impl.fn, o));
    if (results.back().interrupted) break;
  }
  return results;
}

int Main(Flags& f) {
  Finish(f);
  cli::InstallInterruptHandler();
  cli::Progress progress;
  f.study.on_step = [&](const std::string& impl, int step, Picos now) {
    progress.Update(impl + ": step " + std::to_string(step) + "/" + std::to_string(f.study.steps) + ", " +
                    std::to_string(PicosToMicros(now) / 1000.0) + " ms simulated");
    return !cli::Interrupted();
  };
  const auto wall_start = std::chrono::steady_clock::now();
  if (!f.compare.empty()) {
    const std::vector<ImplResult> old_results = RunStudy(f.study);
    StudyOptions other = f.study;
    other.config = cli::ConfigArg(f.compare);
    other.out_dir = f.study.out_dir + "/compare";
    rt::Runtime::Get().Reset();
    const std::vector<ImplResult> new_results = RunStudy(other);
    if (cli::Interrupted()) return cli::kExitInterrupted;
    const StudyComparison c = CompareStudies(old_results, new_results, f.study.config, other.config, f.study);
    std::cout << (f.json ? c.json.dump(2) + "\n" : c.text);
    return cli::kExitOk;
  }
  const std::vector<ImplResult> results = RunStudy(f.study);
  if (cli::Interrupted()) {
    std::cerr << "rmsnorm: interrupted; the profiles exported so far under " << f.study.out_dir << " are complete\n";
    return cli::kExitInterrupted;
  }
  for (const ImplResult& r : results) {  // each implementation's directory gets the Parquet tables too
    const std::string tables = WriteProfileTables(r.out_dir);
    if (tables.empty()) continue;
    std::cerr << "rmsnorm: error: the Parquet tables of " << r.out_dir << " were not written: " << tables << "\n";
    return cli::kExitRuntime;
  }
  const Agreement agreement = CheckAgreement(results, f.study);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const HardwareConfig& config = rt::Runtime::Get().core(0).config();
  const nlohmann::json report = ReportJson(results, agreement, f.study, config, wall_s);
  prof::WriteFileAtomically(f.study.out_dir + "/summary.json", report.dump(2) + "\n");
  prof::WriteFileAtomically(f.study.out_dir + "/report.html", StudyPageHtml(report));
  std::cout << (f.json ? report.dump(2) + "\n" : ReportText(results, agreement, f.study, config, wall_s));
  return agreement.ok ? cli::kExitOk : cli::kExitRuntime;
}

}  // namespace
}  // namespace study
}  // namespace nsim

int main(int argc, char** argv) {
  nsim::study::Flags f;
  f.study.out_dir = "rmsnorm_profile";
  CLI::App app("The RMSNorm profiling study: op by op, rms_norm and compiled, profiled like the reference study",
               "rmsnorm");
  app.add_option("--config", f.study.config, "config name under configs/ or a YAML path (default trn2)");
  app.add_option("--shape", f.shape, "input shape D0,D1,... (default 4,512; at most 8 dims; the tensors must fit the core's HBM)");
  app.add_option("--dtype", f.dtype, "bf16, f32 or f16 (default bf16)");
  app.add_option("--steps", f.steps, "profiled steps, a multiple of 4, at most 4000 (default 4)");
  app.add_option("--lnc", f.lnc, "physical NeuronCores per device, 1 (default) or 2: ops split over both");
  app.add_option("--out", f.study.out_dir, "output directory (default rmsnorm_profile)");
  app.add_flag("--json", f.json, "print one JSON object (docs/output-schema.md) instead of the tables");
  app.add_flag("--no-device-capture", f.no_device_capture, "profile without device capture (no per-execution capture cost)");
  app.add_option("--compare", f.compare, "also run on CONFIG and print old/new/change (capture off by default)");
  app.add_flag("--device-capture", f.device_capture, "with --compare: keep device capture on");
  app.add_flag("--timing-only", f.study.timing_only,
               "simulate without computing values: same device times and profiles, no numerical check");
  return nsim::cli::Run(app, argc, argv, [&] { return nsim::study::Main(f); });
}
