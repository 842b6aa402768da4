#pragma once
// The core's semaphores. Signals are applied at their time (an instruction's
// completion plus the propagation latency). An engine that must wait
// registers the value it waits for (Await) and returns; the board resumes it
// by a direct call once a waiter's value is reached, not on every signal
// before (issue 12: no SystemC event, trigger and process switch per wake).
#include <algorithm>
#include <cstdint>
#include <queue>
#include <vector>

#include <systemc>

#include "sim/base/time.h"
#include "sim/kernel/kernel.h"

namespace nsim {

// What waits on a semaphore (an engine). Resume runs inside the board's
// process, at the time the semaphore reached the value waited for.
class SemaphoreWaiter {
 public:
  virtual void Resume() = 0;

 protected:
  ~SemaphoreWaiter() = default;
};

// An instruction that signals: its engine and position in that engine's stream.
struct Signaller {
  EngineId engine = EngineId::kTensor;
  int index = -1;
};

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
  // Registers that `waiter` waits for semaphore `wait.sem` to reach
  // `wait.value` (which it has not): it is resumed once it does, not on every
  // signal before. Every waiter of that semaphore is resumed then; one whose
  // value is not reached yet registers again.
  void Await(const SemWait& wait, SemaphoreWaiter* waiter) {
    lowest_wait_[wait.sem] = std::min(lowest_wait_[wait.sem], wait.value);
    waiters_[wait.sem].push_back(waiter);
  }
  // Applies every signal's delta at absolute time `at` (>= now); `from` is
  // the signalling instruction (for the profile's "why it waited").
  void Signal(Picos at, const SemSignal* signals, size_t n, Signaller from);
  int64_t value(int sem) const { return values_[sem]; }
  // The instruction whose signal `sem` applied last (index -1: none yet).
  Signaller last_signaller(int sem) const { return last_signaller_[sem]; }
  // The run aborts: every waiter is forgotten (the core wakes its engines).
  void ForgetWaiters();

 private:
  struct Pending {
    Picos at;
    uint64_t seq;
    int sem;
    int64_t delta;
    Signaller from;
    bool operator>(const Pending& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  void Apply();
  void Reached(int sem);  // resumes the semaphore's waiters

  std::vector<int64_t> values_;
  std::vector<Signaller> last_signaller_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending_;
  uint64_t seq_ = 0;
  std::vector<std::vector<SemaphoreWaiter*>> waiters_;  // per semaphore, in order of Await
  std::vector<SemaphoreWaiter*> resuming_;                // Reached's copy of one semaphore's waiters
  // Per semaphore, the lowest value a waiter waits for (kNoWaiter: none), so
  // a signal that wakes no one costs a comparison.
  static constexpr int64_t kNoWaiter = INT64_MAX;
  std::vector<int64_t> lowest_wait_;
  sc_core::sc_event wake_;
  // When wake_ is due (absolute), kNever if not: a later notification would
  // be ignored by SystemC, so it is not made.
  static constexpr Picos kNever = INT64_MAX;
  Picos wake_at_ = kNever;
};

}  // namespace nsim
