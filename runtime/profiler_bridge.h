#pragma once
// Tells the profiler (profiler/events.h) what the runtime did: each API call
// (nrta_execute_schedule, nrta_tensor_write/read) and, for executions, the
// device execution with — when device capture is on for the core — the
// kernel text and one slice per instruction and DMA piece. Costs one branch
// when no profile records.
#include "profiler/events.h"
#include "runtime/execution_record.h"
#include "sim/config/hw_config.h"

namespace nsim {
namespace rt {

void ReportToProfiler(const ExecutionRecord& record, const HardwareConfig& config);

// Fills the capture payload of `exec` (kernel text, one slice per instruction
// and DMA piece, the config's peaks) from one execution of `kernel`. Also used
// by the Python frontend (//python), which runs kernels on a Device directly.
void CaptureExecution(const Kernel& kernel, const ExecutionResult& result, const HardwareConfig& config,
                      prof::DeviceExecution* exec);

}  // namespace rt
}  // namespace nsim
