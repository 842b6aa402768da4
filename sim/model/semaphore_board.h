#pragma once
// The core's semaphores. Signals are applied at their time (an instruction's
// completion plus the propagation latency); waiting engines wake on `changed`.
#include <cstdint>
#include <deque>
#include <queue>
#include <vector>

#include <systemc>

#include "sim/base/time.h"
#include "sim/kernel/kernel.h"

namespace nsim {

class SemaphoreBoard : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(SemaphoreBoard);
  explicit SemaphoreBoard(sc_core::sc_module_name name);

  void Reset(size_t count);
  // The first wait in `waits` that does not hold yet, or -1.
  int FirstUnsatisfied(const SemWait* waits, size_t n) const {  // inline: checked before every waiting instruction
    for (size_t i = 0; i < n; ++i) {
      if (values_[waits[i].sem] < waits[i].value) return waits[i].sem;
    }
    return -1;
  }
  // Applies every signal's delta at absolute time `at` (>= now).
  void Signal(Picos at, const SemSignal* signals, size_t n);
  int64_t value(int sem) const { return values_[sem]; }
  // Notified when semaphore `sem` changes (and when the run aborts), so an
  // engine waiting on one semaphore is not woken by every other signal.
  sc_core::sc_event& changed(int sem) { return events_[sem]; }
  void WakeAll();

 private:
  struct Pending {
    Picos at;
    uint64_t seq;
    int sem;
    int64_t delta;
    bool operator>(const Pending& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  void Apply();

  std::vector<int64_t> values_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending_;
  uint64_t seq_ = 0;
  std::deque<sc_core::sc_event> events_;  // one per semaphore; grows, never shrinks
  sc_core::sc_event wake_;
};

}  // namespace nsim
