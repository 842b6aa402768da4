#include "validation/suite_file.h"

#include <fstream>
#include <sstream>

#include "sim/base/error.h"
#include "sim/config/units.h"
#include "sim/kernel/parser.h"

namespace nsim {
namespace validation {

std::vector<Case> ReadSuiteFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw SimError("suite '" + path + "': cannot open (built-in suites: trn1)");
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::vector<Case> cases;
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string name, kernel, measured, method, extra;
    if (!(fields >> name)) continue;
    const std::string where = path + ":" + std::to_string(no) + ": ";
    if (!(fields >> kernel >> measured >> method) || (fields >> extra)) {
      throw SimError(where + "expected NAME KERNEL.nk MEASURED METHOD, got '" + line + "'");
    }
    Case c;
    c.name = name;
    c.group = "user";
    c.structure = kernel;
    c.source = path;
    c.method_text = method;
    if (!ParseTimingMethod(method, &c.method)) {
      throw SimError(where + "unknown timing method '" + method + "' (device_execution, ncl, profile_total)");
    }
    try {
      c.measured_ns = static_cast<double>(ParseTime(measured)) / 1000.0;
    } catch (const SimError& e) {
      throw SimError(where + "measured value: " + e.what());
    }
    const std::string kpath = kernel.front() == '/' ? kernel : dir + kernel;
    LoadKernelFile(kpath);  // fail now, naming the line, rather than mid-report
    c.build = [kpath] { return LoadKernelFile(kpath); };
    cases.push_back(std::move(c));
  }
  if (cases.empty()) throw SimError("suite '" + path + "' has no cases");
  return cases;
}

}  // namespace validation
}  // namespace nsim
