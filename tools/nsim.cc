// nsim: run a kernel file on a simulated NeuronCore, or print a config.
//   nsim run KERNEL_FILE [--config NAME|PATH] [--set key=value ...] [--json] [--records] [--grid N]
//   nsim config [--config NAME|PATH] [--set key=value ...]
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"
#include "tools/grid_run.h"
#include "tools/nsim_report.h"

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  nsim run KERNEL_FILE [--config NAME|PATH] [--set key=value ...] [--json] [--records] [--grid N]\n"
    "  nsim config [--config NAME|PATH] [--set key=value ...]\n"
    "--config defaults to trn2; names are files under configs/.\n";

struct Args {
  std::string command, kernel_file, config = "trn2";
  std::vector<std::string> overrides;
  bool json = false, records = false;
  int grid = 0;  // --grid N: N SPMD programs on one chip (0: the single-core run)
};

int GridSize(const std::string& v) {
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < 1 || n > 1024) throw nsim::SimError("--grid needs a number of programs >= 1, got '" + v + "'");
  return static_cast<int>(n);
}

Args Parse(int argc, char** argv) {
  if (argc < 2) throw nsim::SimError(kUsage);
  Args a;
  a.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw nsim::SimError("missing value after " + arg + "\n" + kUsage);
      return argv[++i];
    };
    if (arg == "--config") a.config = value();
    else if (arg == "--set") a.overrides.push_back(value());
    else if (arg == "--json") a.json = true;
    else if (arg == "--records") a.records = true;
    else if (arg == "--grid") a.grid = GridSize(value());
    else if (arg.rfind("--", 0) == 0) throw nsim::SimError("unknown option " + arg + "\n" + kUsage);
    else if (a.kernel_file.empty()) a.kernel_file = arg;
    else throw nsim::SimError("unexpected argument " + arg + "\n" + kUsage);
  }
  if (a.command != "run" && a.command != "config") throw nsim::SimError("unknown command '" + a.command + "'\n" + kUsage);
  if (a.command == "run" && a.kernel_file.empty()) throw nsim::SimError("run needs a KERNEL_FILE\n" + std::string(kUsage));
  return a;
}

// `bazel run` starts in the runfiles tree; relative paths mean the user's directory.
std::string UserPath(const std::string& p) {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (p.empty() || p[0] == '/' || wd == nullptr) return p;
  return std::string(wd) + "/" + p;
}

int Run(const Args& a) {
  const nsim::HardwareConfig config = nsim::LoadHardwareConfig(
      a.config.find('/') != std::string::npos ? UserPath(a.config) : a.config, a.overrides);
  if (a.command == "config") {
    std::cout << nsim::FormatHardwareConfig(config);
    return 0;
  }
  if (a.grid > 0) {
    const std::string path = UserPath(a.kernel_file);
    const nlohmann::json report = nsim::GridReport(config, nsim::ReadKernelFile(path), path, a.grid);
    std::cout << (a.json ? report.dump(2) + "\n" : nsim::FormatGridReport(report));
    return 0;
  }
  const nsim::Kernel kernel = nsim::LoadKernelFile(UserPath(a.kernel_file));
  nsim::Device device(config);
  const nsim::ExecutionResult result = device.Execute(kernel);
  const nlohmann::json report = nsim::ExecutionReport(config, kernel, result);
  if (a.json) {
    std::cout << report.dump(2) << "\n";
  } else {
    std::cout << nsim::FormatReport(report);
    if (a.records) std::cout << "\n" << nsim::FormatRecords(kernel, result);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(Parse(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "nsim: " << e.what() << "\n";
    return 1;
  }
}
