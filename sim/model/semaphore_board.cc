#include "sim/model/semaphore_board.h"

#include "sim/model/run_state.h"

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
  wake_.cancel();
}

void SemaphoreBoard::WakeAll() {
  for (size_t i = 0; i < values_.size(); ++i) events_[i].notify(sc_core::SC_ZERO_TIME);
}

void SemaphoreBoard::Signal(Picos at, const SemSignal* signals, size_t n) {
  if (n == 0) return;
  for (size_t i = 0; i < n; ++i) pending_.push({at, seq_++, signals[i].sem, signals[i].delta});
  wake_.notify(Ps(pending_.top().at - Now()));  // keeps the earliest pending notification
}

void SemaphoreBoard::Apply() {
  const Picos now = Now();
  while (!pending_.empty() && pending_.top().at <= now) {
    values_[pending_.top().sem] += pending_.top().delta;
    events_[pending_.top().sem].notify();
    pending_.pop();
  }
  if (!pending_.empty()) wake_.notify(Ps(pending_.top().at - now));
}

}  // namespace nsim
