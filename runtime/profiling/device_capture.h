#pragma once
// The capture payload of one execution as the profiler shows it (kernel text,
// one slice per instruction and DMA piece, peak rates): shared by the
// runtime's profiler bridge and `nsim run --out` (tools/run_output.h), so a
// kernel run alone and the same kernel in a profiled program read alike.
#include "profiler/events.h"
#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/model/execution_result.h"

namespace nsim {
namespace rt {

void CaptureExecution(const Kernel& kernel, const ExecutionResult& result, const HardwareConfig& config,
                      prof::DeviceExecution* exec);

}  // namespace rt
}  // namespace nsim
