#pragma once
// What the study prints: per-implementation tables and device breakdowns, the
// side-by-side comparison with the measured figures (and the error of each),
// and the numerical agreement of the three outputs with a CPU reference.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "benchmarks/rmsnorm/study_runner.h"
#include "sim/config/hw_config.h"

namespace nsim {
namespace study {

struct Agreement {
  bool ok = true;
  bool checked = true;  // false for a timing-only run: no values to compare
  double tolerance = 0;
  std::vector<std::pair<std::string, double>> max_abs_diff;  // per implementation, vs the CPU reference
};

Agreement CheckAgreement(const std::vector<ImplResult>& results, const StudyOptions& o);

std::string ReportText(const std::vector<ImplResult>& results, const Agreement& agreement, const StudyOptions& o,
                       const HardwareConfig& config, double wall_seconds);
nlohmann::json ReportJson(const std::vector<ImplResult>& results, const Agreement& agreement,
                          const StudyOptions& o, const HardwareConfig& config, double wall_seconds);

}  // namespace study
}  // namespace nsim
