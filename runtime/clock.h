#pragma once
// The simulated clock that host and device share. Host-side work (framework
// dispatch, runtime submission, copy set-up) advances it by modelled costs;
// device executions are placed on it by the runtime; reading a result or
// synchronising moves the host to the device's completion time. The
// simulator's own wall-clock time is measured separately and never mixed in.
#include "sim/base/time.h"

namespace nsim {
namespace rt {

class SimClock {
 public:
  // The process-wide clock (one host, as in the study).
  static SimClock& Get();

  Picos now() const { return now_; }
  void Advance(Picos d) { now_ += d; }
  // Moves forward to `t` if it is later (waiting for the device).
  void AdvanceTo(Picos t) {
    if (t > now_) now_ = t;
  }
  void Reset() { now_ = 0; }

 private:
  Picos now_ = 0;
};

}  // namespace rt
}  // namespace nsim
