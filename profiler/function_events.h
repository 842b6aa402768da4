#pragma once
// Turns a Recording into PyTorch FunctionEvents: one row per op, runtime call
// and device execution, with CPU parent/child links from time containment per
// thread and device time attributed to the op that launched it through its
// correlation id (torch.autograd.profiler._parse_kineto_results).
#include <vector>

#include "profiler/event_list.h"
#include "profiler/recording.h"

namespace nsim {
namespace prof {

// Name of the table row / trace slice of a device execution.
constexpr const char* kDeviceExecutionName = "nc_exec_running";

// Rows sorted by (start, -end), as prof.events() returns them.
std::vector<EventStats> BuildFunctionEvents(const Recording& recording);

// Whether device executions are shown in the table at all.
bool ShowsDeviceTime(const Recording& recording);

}  // namespace prof
}  // namespace nsim
