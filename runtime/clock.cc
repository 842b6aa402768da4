#include "runtime/clock.h"

namespace nsim {
namespace rt {

SimClock& SimClock::Get() {
  static SimClock clock;
  return clock;
}

}  // namespace rt
}  // namespace nsim
