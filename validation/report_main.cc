// bazel run //validation:report -- [--suite trn1|FILE] [--config trn1|PATH]
//   [--set key=value ...] [--only NAME,...] [--json] [--frontend DIR | --no-frontend]
// Prints, for every case of the suite: measured, model (the hand-built
// kernel), error, and the frontend row: the case's NKI source
// (validation/nki/) traced by nsim.nki and timed the same way; then the
// median and worst absolute errors. Under `bazel run` the NKI sources are
// traced from the workspace (python3, the nsim package of python/ with its
// extension built); --frontend DIR times .nk files traced before;
// --no-frontend leaves the frontend out. Exit 1 on bad arguments or input.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "validation/frontend.h"
#include "validation/report.h"
#include "validation/run.h"
#include "validation/suite.h"

namespace {

void Usage() {
  std::cerr << "usage: report [--suite trn1|FILE] [--config NAME|PATH] [--set key=value]... [--only NAME,...] [--json]"
               " [--frontend DIR | --no-frontend]\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nsim;
  using namespace nsim::validation;
  std::string suite = "trn1", config = "trn1", only, frontend_dir;
  std::vector<std::string> overrides;
  bool json = false, frontend = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw SimError("missing value after " + a);
      return argv[++i];
    };
    try {
      if (a == "--suite") suite = value();
      else if (a == "--config") config = value();
      else if (a == "--set") overrides.push_back(value());
      else if (a == "--only") only = value();
      else if (a == "--json") json = true;
      else if (a == "--frontend") frontend_dir = value();
      else if (a == "--no-frontend") frontend = false;
      else if (a == "--help" || a == "-h") { Usage(); return 0; }
      else throw SimError("unknown argument '" + a + "'");
    } catch (const SimError& e) {
      std::cerr << "report: " << e.what() << "\n";
      Usage();
      return 1;
    }
  }
  try {
    const HardwareConfig cfg = LoadHardwareConfig(UserConfig(config), overrides);
    SuiteRunner runner(SelectCases(LoadSuite(suite), only));
    const std::vector<CaseResult> results = runner.Run(cfg);
    const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    bool traced_here = false;
    if (frontend && frontend_dir.empty() && workspace != nullptr) {
      try {
        frontend_dir = EmitFrontendKernels(workspace, config, runner.cases());
        traced_here = true;
      } catch (const SimError& e) {  // the hand-built rows stand on their own
        std::cerr << "report: no frontend rows: " << e.what() << "\n";
      }
    }
    FrontendRows rows;
    if (frontend && !frontend_dir.empty()) rows = RunFrontend(runner.cases(), UserPath(frontend_dir), cfg);
    if (traced_here) std::filesystem::remove_all(frontend_dir);
    const FrontendRows* shown = frontend && !frontend_dir.empty() ? &rows : nullptr;
    if (json) std::cout << ReportJson(cfg, results, shown).dump(2) << "\n";
    else std::cout << ReportTable(cfg, results, shown);
  } catch (const SimError& e) {
    std::cerr << "report: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
