#pragma once
// Frontend rows of the validation report: the same cases written as NKI
// source (validation/nki/), traced by nsim.nki into .nk files and timed here
// with the case's own metric, beside the hand-built kernels.
#include <map>
#include <string>
#include <vector>

#include "sim/config/hw_config.h"
#include "validation/run.h"

namespace nsim {
namespace validation {

// Runs `python3 validation/nki/emit_cases.py --out DIR --config CONFIG` in
// `workspace` (the source tree) for the cases named; returns DIR, or throws
// SimError with the script's exit status when it fails.
std::string EmitFrontendKernels(const std::string& workspace, const std::string& config,
                                const std::vector<Case>& cases);

// The frontend row of every case with a DIR/<case>.nk file, by case name.
// `rows` owns the cases the results point to.
std::map<std::string, CaseResult> RunFrontend(const std::vector<Case>& cases, const std::string& dir,
                                              const HardwareConfig& config);

}  // namespace validation
}  // namespace nsim
