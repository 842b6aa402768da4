#pragma once
// Progress of a long execution, reported while it simulates (`nsim run`
// shows it on a terminal). With a reporter set, the simulation advances in
// slices of simulated time and stops early when it runs out of events, so
// the schedule, device time and records are the same as without one.
#include <cstdint>
#include <functional>

#include "sim/base/time.h"

namespace nsim {

struct RunProgress {
  Picos simulated = 0;             // since the launch started
  int64_t instructions_done = 0;   // issued so far, all cores of the launch
  int64_t instructions_total = 0;
};

using ProgressFn = std::function<void(const RunProgress&)>;

// Simulated time between two reports: short enough that a kernel taking
// seconds of wall time reports often, long enough to cost nothing measurable.
constexpr Picos kProgressSlicePs = 10'000'000;  // 10 us

}  // namespace nsim
