#pragma once
// The profile of one kernel run, written with the profiler's own exporter
// (profiler/neuron_profiler.h): trace.json (engine and DMA lanes),
// <hash>.neff / <hash>.ntff and device_summary.{json,txt} in `dir`.
#include <string>
#include <vector>

#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/model/execution_result.h"

namespace nsim {
namespace pyfront {

// Returns the paths written. Throws std::runtime_error if a file cannot be written.
std::vector<std::string> WriteKernelProfile(const Kernel& kernel, const ExecutionResult& result,
                                            const HardwareConfig& config, const std::string& dir);

}  // namespace pyfront
}  // namespace nsim
