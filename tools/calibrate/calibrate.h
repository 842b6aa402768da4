#pragma once
// Fits named config parameters to a validation suite: least squares on the
// log error log(model / measured) over the suite's cases, each parameter kept
// within the limits of its key (sim/config/params.cc) and searched on a log
// scale (Nelder-Mead; deterministic). The result is written as a config that
// inherits the base part and sets each fitted value with a comment naming
// the fit, the suite and the date.
#include <functional>
#include <string>
#include <vector>

#include "sim/config/hw_config.h"
#include "validation/run.h"

namespace nsim {
namespace calibrate {

struct FitResult {
  std::vector<std::string> keys;
  std::vector<double> before, after;  // base units of each key (ps, Hz, ...)
  double cost_before = 0, cost_after = 0;  // sum of squared log errors
  int evaluations = 0;
};

// The value of `key` in `c`, in base units. Throws SimError for an unknown
// or non-numeric key.
double GetValue(const HardwareConfig& c, const std::string& key);
// `c` with `keys` set to `values` (clamped to each key's limits).
HardwareConfig WithValues(const HardwareConfig& c, const std::vector<std::string>& keys,
                          const std::vector<double>& values);

double LogCost(const std::vector<validation::CaseResult>& results);

// `progress` (optional) sees every evaluation: values and cost.
FitResult Fit(const validation::SuiteRunner& suite, const HardwareConfig& base, const std::vector<std::string>& keys,
              int max_evaluations,
              const std::function<void(const std::vector<double>&, double)>& progress = nullptr);

// The calibrated config: `inherits: <base_ref>` plus the fitted keys with
// their units, each commented "fitted by tools/calibrate to <suite> on <date>
// (was <old>)".
std::string CalibratedYaml(const std::string& base_ref, const std::string& suite, const std::string& date,
                           const FitResult& fit);

}  // namespace calibrate
}  // namespace nsim
