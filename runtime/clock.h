#pragma once
// Compatibility name: the shared simulated time base now lives at the bottom
// of the dependency graph (sim/base/sim_clock.h), so the profiler and the
// runtime read it without depending on each other. rt::SimClock is that clock.
#include "sim/base/sim_clock.h"

namespace nsim {
namespace rt {

using SimClock = ::nsim::SimClock;

}  // namespace rt
}  // namespace nsim
