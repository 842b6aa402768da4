#pragma once
// Runs validation cases on a config and compares them with their measurements.
#include <memory>
#include <string>
#include <vector>

#include "sim/config/hw_config.h"
#include "validation/case.h"

namespace nsim {
namespace validation {

struct CaseResult {
  const Case* c = nullptr;
  double model_ns = 0;
  double error = 0;  // (model - measured) / measured
};

struct SuiteStats {
  double median_abs_error = 0;
  double worst_abs_error = 0;
  std::string worst_case;
};

// Builds each case's kernel once; Run() times them (timing only, no values)
// on any number of configs, e.g. once per step of a calibration.
class SuiteRunner {
 public:
  explicit SuiteRunner(std::vector<Case> cases);
  const std::vector<Case>& cases() const { return cases_; }
  std::vector<CaseResult> Run(const HardwareConfig& config) const;

 private:
  std::vector<Case> cases_;
  std::vector<Kernel> kernels_;
};

SuiteStats Summarise(const std::vector<CaseResult>& results);

}  // namespace validation
}  // namespace nsim
