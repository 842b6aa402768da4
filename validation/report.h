#pragma once
// The validation table, as text or JSON, shared by the report and the
// calibration tool.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/hw_config.h"
#include "validation/run.h"

namespace nsim {
namespace validation {

// "12.3 us" style: the measured scale of a case.
std::string FormatNs(double ns);
std::string FormatError(double error);  // "+4.2 %"
// Frontend rows (validation/frontend.h), by case name, if given: printed beside the hand-built ones.
using FrontendRows = std::map<std::string, CaseResult>;
std::string ReportTable(const HardwareConfig& config, const std::vector<CaseResult>& results,
                        const FrontendRows* frontend = nullptr);
nlohmann::json ReportJson(const HardwareConfig& config, const std::vector<CaseResult>& results,
                          const FrontendRows* frontend = nullptr);
// The cases named in `only` (comma separated; empty: all). Throws on an unknown name.
std::vector<Case> SelectCases(std::vector<Case> cases, const std::string& only);

}  // namespace validation
}  // namespace nsim
