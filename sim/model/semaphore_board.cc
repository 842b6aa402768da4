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
  last_signaller_.assign(count, Signaller{});
  waiters_.resize(count);
  for (auto& w : waiters_) w.clear();
  pending_ = {};
  lowest_wait_.assign(count, kNoWaiter);
  wake_.cancel();
  wake_at_ = kNever;
}

void SemaphoreBoard::ForgetWaiters() {
  for (auto& w : waiters_) w.clear();
  std::fill(lowest_wait_.begin(), lowest_wait_.end(), kNoWaiter);
}

void SemaphoreBoard::Signal(Picos at, const SemSignal* signals, size_t n, Signaller from) {
  if (n == 0) return;
  for (size_t i = 0; i < n; ++i) pending_.push({at, seq_++, signals[i].sem, signals[i].delta, from});
  if (at >= wake_at_) return;  // SystemC keeps the earlier notification
  wake_at_ = at;
  wake_.notify(ScPs(at - Now()));
}

// A resumed waiter runs on inside this loop: it may signal (a signal due now
// is applied by this loop) and wait again (on any semaphore).
void SemaphoreBoard::Apply() {
  const Picos now = Now();
  wake_at_ = kNever;
  while (!pending_.empty() && pending_.top().at <= now) {
    const int sem = pending_.top().sem;
    values_[sem] += pending_.top().delta;
    last_signaller_[sem] = pending_.top().from;
    pending_.pop();
    if (values_[sem] >= lowest_wait_[sem]) Reached(sem);  // resumes every waiter of `sem`: the others register again
  }
  if (!pending_.empty() && pending_.top().at < wake_at_) {  // a resumed waiter may have asked for it already
    wake_at_ = pending_.top().at;
    wake_.notify(ScPs(wake_at_ - now));
  }
}

void SemaphoreBoard::Reached(int sem) {
  lowest_wait_[sem] = kNoWaiter;
  resuming_.swap(waiters_[sem]);  // those resumed may register again, on `sem` too
  for (SemaphoreWaiter* w : resuming_) w->Resume();
  resuming_.clear();
}

}  // namespace nsim
