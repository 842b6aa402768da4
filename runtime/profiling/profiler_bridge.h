#pragma once
// The glue between the runtime and the profiler, which do not know each other:
// linking //runtime/profiling:profiler_bridge (alwayslink) subscribes to the
// runtime's records (runtime/observer.h) and forwards each API call
// (nrta_execute_schedule, nrta_tensor_write/read) and execution to the
// profiler (profiler/events.h) -- with, when device capture is on for the
// core, the kernel text and one slice per instruction and DMA piece -- and
// passes the profiler's device-capture choice down to the runtime
// (runtime/capture_setting.h) whenever a profile starts or stops recording.
// Costs one branch per record when no profile records.
#include "runtime/execution_record.h"

namespace nsim {
namespace rt {

// What the subscription does with each record (exposed for tests).
void ReportToProfiler(const ExecutionRecord& record);

}  // namespace rt
}  // namespace nsim
