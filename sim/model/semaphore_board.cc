#include "sim/model/semaphore_board.h"

#include "sim/model/run_state.h"
#include "sim/model/sc_time_ps.h"

namespace nsim {

SemaphoreBoard::SemaphoreBoard(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_METHOD(Apply);
  sensitive << wake_;
  dont_initialize();
}

void SemaphoreBoard::Reset(size_t count) {
  values_.assign(count, 0);
  while (events_.size() < count) events_.emplace_back();
  pending_ = {};
  lowest_wait_.assign(count, kNoWaiter);
  wake_.cancel();
  wake_at_ = kNever;
}

void SemaphoreBoard::WakeAll() {
  for (size_t i = 0; i < values_.size(); ++i) events_[i].notify(sc_core::SC_ZERO_TIME);
  std::fill(lowest_wait_.begin(), lowest_wait_.end(), kNoWaiter);
}

void SemaphoreBoard::Signal(Picos at, const SemSignal* signals, size_t n) {
  if (n == 0) return;
  for (size_t i = 0; i < n; ++i) pending_.push({at, seq_++, signals[i].sem, signals[i].delta});
  if (at >= wake_at_) return;  // SystemC keeps the earlier notification
  wake_at_ = at;
  wake_.notify(ScPs(at - Now()));
}

void SemaphoreBoard::Apply() {
  const Picos now = Now();
  wake_at_ = kNever;
  while (!pending_.empty() && pending_.top().at <= now) {
    const int sem = pending_.top().sem;
    values_[sem] += pending_.top().delta;
    pending_.pop();
    if (values_[sem] >= lowest_wait_[sem]) {  // wakes every waiter of `sem`: the others register again
      lowest_wait_[sem] = kNoWaiter;
      events_[sem].notify();
    }
  }
  if (!pending_.empty()) {
    wake_at_ = pending_.top().at;
    wake_.notify(ScPs(wake_at_ - now));
  }
}

}  // namespace nsim
