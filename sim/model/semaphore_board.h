#pragma once
// The core's semaphores. Signals are applied at their time (an instruction's
// completion plus the propagation latency). An engine that must wait
// registers the value it waits for (Await) and is woken once the semaphore
// reaches it, not on every signal before (a semaphore counting a stream's
// tiles changes once per tile).
#include <cstdint>
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
  // The first wait in `waits` that does not hold yet, or nullptr.
  const SemWait* FirstUnsatisfied(const SemWait* waits, size_t n) const {  // inline: before every waiting instruction
    for (size_t i = 0; i < n; ++i) {
      if (values_[waits[i].sem] < waits[i].value) return &waits[i];
    }
    return nullptr;
  }
  // Notifies `ready` (immediately) once semaphore `wait.sem` is at least
  // `wait.value` (which it is not now), or (after a delta) when the run
  // aborts (WakeAll). One registration per wake: the waiter checks again and
  // registers again if another signal took the value back.
  void Await(const SemWait& wait, sc_core::sc_event* ready) { waiters_.push_back({wait.sem, wait.value, ready}); }
  // Applies every signal's delta at absolute time `at` (>= now).
  void Signal(Picos at, const SemSignal* signals, size_t n);
  int64_t value(int sem) const { return values_[sem]; }
  void WakeAll();

 private:
  struct Pending {
    Picos at;
    uint64_t seq;
    int sem;
    int64_t delta;
    bool operator>(const Pending& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  struct Waiter {
    int sem;
    int64_t value;
    sc_core::sc_event* ready;
  };
  void Apply();
  void WakeReached(int sem);

  std::vector<int64_t> values_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending_;
  uint64_t seq_ = 0;
  // In order of registration (the order they are woken in); at most one per engine.
  std::vector<Waiter> waiters_;
  sc_core::sc_event wake_;
  // When wake_ is due (absolute), kNever if not: a later notification would
  // be ignored by SystemC, so it is not made.
  static constexpr Picos kNever = INT64_MAX;
  Picos wake_at_ = kNever;
};

}  // namespace nsim
