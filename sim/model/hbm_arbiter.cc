#include "sim/model/hbm_arbiter.h"

#include <algorithm>
#include <cmath>

#include "sim/model/run_state.h"

namespace nsim {
namespace {
constexpr double kDoneBytes = 1e-6;  // below this a flow has finished (rounding of ps)
}

HbmArbiter::HbmArbiter(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_METHOD(OnTick);
  sensitive << tick_;
  dont_initialize();
}

void HbmArbiter::Configure(double hbm_bytes_per_ns, double engine_bytes_per_ns) {
  hbm_bw_ = hbm_bytes_per_ns;
  engine_bw_ = engine_bytes_per_ns;
}

void HbmArbiter::Transfer(double bytes) {
  Flow f{bytes, {}};
  Advance();
  flows_.push_back(&f);
  Reschedule();
  sc_core::wait(f.done);
}

void HbmArbiter::Advance() {
  const Picos now = Now();
  const double moved = rate_ * static_cast<double>(now - last_) / 1000.0;
  for (Flow* f : flows_) f->remaining -= moved;
  last_ = now;
}

void HbmArbiter::Reschedule() {
  tick_.cancel();
  if (flows_.empty()) { rate_ = 0; return; }
  rate_ = std::min(engine_bw_, hbm_bw_ / static_cast<double>(flows_.size()));
  double least = flows_.front()->remaining;
  for (Flow* f : flows_) least = std::min(least, f->remaining);
  const Picos dt = static_cast<Picos>(std::ceil(std::max(0.0, least) / rate_ * 1000.0));
  tick_.notify(Ps(dt));
}

void HbmArbiter::OnTick() {
  Advance();
  auto finished = std::stable_partition(flows_.begin(), flows_.end(),
                                        [](const Flow* f) { return f->remaining > kDoneBytes; });
  for (auto it = finished; it != flows_.end(); ++it) (*it)->done.notify();
  flows_.erase(finished, flows_.end());
  Reschedule();
}

}  // namespace nsim
