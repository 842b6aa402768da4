#pragma once
// The glue between the runtime and the profiler, which do not know each other:
// linking //runtime/profiling:profiler_bridge (alwayslink) subscribes to the
// runtime's records (runtime/observer.h) and forwards each API call
// (nrta_execute_schedule, nrta_tensor_write/read) and execution to the
// profiler (profiler/events.h) -- with, when device capture is on for the
// core, the kernel text and one slice per instruction and DMA piece -- and
// passes the profiler's device-capture choice down to the runtime
// (runtime/device_capture.h) whenever a profile starts or stops recording.
// Costs one branch per record when no profile records.
#include "profiler/events.h"
#include "runtime/execution_record.h"
#include "sim/config/hw_config.h"

namespace nsim {
namespace rt {

// What the subscription does with each record (exposed for tests).
void ReportToProfiler(const ExecutionRecord& record);

// Fills the capture payload of `exec` (kernel text, one slice per instruction
// and DMA piece, the config's peaks) from one execution of `kernel`. Also used
// by the Python frontend (//python), which runs kernels on a Device directly.
void CaptureExecution(const Kernel& kernel, const ExecutionResult& result, const HardwareConfig& config,
                      prof::DeviceExecution* exec);

}  // namespace rt
}  // namespace nsim
