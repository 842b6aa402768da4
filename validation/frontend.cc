#include "validation/frontend.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/base/error.h"
#include "sim/kernel/parser.h"
#include "sim/model/loaded_kernel.h"
#include "sim/model/timing_run.h"

namespace nsim {
namespace validation {

std::string EmitFrontendKernels(const std::string& workspace, const std::string& config,
                                const std::vector<Case>& cases) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("nsim_validation_nki_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string only;
  for (const Case& c : cases) only += (only.empty() ? "" : ",") + c.name;
  const std::string cmd = "cd '" + workspace + "' && python3 validation/nki/emit_cases.py --out '" + dir.string() +
                          "' --config '" + config + "' --only '" + only + "' 1>&2";
  const int status = std::system(cmd.c_str());
  if (status != 0)
    throw SimError("tracing the NKI sources failed (exit " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : status) +
                   "): " + cmd + " (the nsim package of python/ needs its extension: `cd python && python3 setup.py "
                   "build_ext --inplace`; or pass --no-frontend)");
  return dir.string();
}

std::map<std::string, CaseResult> RunFrontend(const std::vector<Case>& cases, const std::string& dir,
                                              const HardwareConfig& config) {
  std::map<std::string, CaseResult> out;
  for (const Case& c : cases) {
    const std::string path = dir + "/" + c.name + ".nk";
    std::ifstream in(path);
    if (!in) continue;  // not expressible from its NKI source (validation/nki/cases.py says why)
    std::stringstream text;
    text << in.rdbuf();
    const Kernel k = ParseKernel(text.str(), path);
    const LoadedKernel loaded(k, config);
    const ExecutionResult r = ExecuteTimingOnly(config, loaded);
    CaseResult cr;
    cr.c = &c;
    cr.model_ns = ModelValueNs(c, r, config);
    cr.error = (cr.model_ns - c.measured_ns) / c.measured_ns;
    out[c.name] = cr;
  }
  return out;
}

}  // namespace validation
}  // namespace nsim
