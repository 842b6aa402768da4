#pragma once
// The host's position on the one simulated time base that host activity and
// device work share. Host-side work (framework dispatch, runtime submission,
// copy set-up) advances it by modelled costs (Advance); device work submitted
// by the runtime starts on the chip at this time and is simulated there
// (sim/model/chip_scheduler.h), lazily, never ahead of it; waiting for the
// device moves it to the device's completion time (AdvanceTo). It lives
// at the bottom of the dependency graph so that every layer (runtime,
// backend, profiler) reads the same time without depending on each other.
// The simulator's own wall-clock time is measured separately and never mixed in.
#include "sim/base/time.h"

namespace nsim {

class SimClock {
 public:
  // The process-wide time base (one host, as in the study).
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

}  // namespace nsim
