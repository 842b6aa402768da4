#include "sim/base/sim_clock.h"

namespace nsim {

SimClock& SimClock::Get() {
  static SimClock clock;
  return clock;
}

}  // namespace nsim
