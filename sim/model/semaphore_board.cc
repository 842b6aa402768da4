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
  pending_ = {};
  wake_.cancel();
}

bool SemaphoreBoard::Satisfied(const std::vector<SemWait>& waits) const {
  for (const SemWait& w : waits) {
    if (values_[w.sem] < w.value) return false;
  }
  return true;
}

void SemaphoreBoard::Signal(Picos at, const std::vector<SemSignal>& signals) {
  if (signals.empty()) return;
  for (const SemSignal& s : signals) pending_.push({at, seq_++, s.sem, s.delta});
  wake_.notify(Ps(pending_.top().at - Now()));  // keeps the earliest pending notification
}

void SemaphoreBoard::Apply() {
  const Picos now = Now();
  bool any = false;
  while (!pending_.empty() && pending_.top().at <= now) {
    values_[pending_.top().sem] += pending_.top().delta;
    pending_.pop();
    any = true;
  }
  if (any) changed_.notify();
  if (!pending_.empty()) wake_.notify(Ps(pending_.top().at - now));
}

}  // namespace nsim
