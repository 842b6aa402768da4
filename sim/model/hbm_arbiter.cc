#include "sim/model/hbm_arbiter.h"

#include <algorithm>
#include <cmath>
#include <array>

#include "sim/model/run_state.h"

namespace nsim {
namespace {
constexpr double kDoneBytes = 1e-6;  // below this a flow has finished (rounding of ps)
// Caps that add up to the stack's bandwidth within rounding are all granted,
// so one core alone on its stack keeps its exact former rates.
constexpr double kFitTolerance = 1e-12;
}  // namespace

HbmArbiter::HbmArbiter(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_METHOD(OnTick);
  sensitive << tick_;
  dont_initialize();
}

void HbmArbiter::Configure(double stack_bytes_per_ns, double core_share_bytes_per_ns, double engine_bytes_per_ns) {
  stack_bw_ = stack_bytes_per_ns;
  core_bw_ = core_share_bytes_per_ns;
  engine_bw_ = engine_bytes_per_ns;
}

void HbmArbiter::Transfer(int core, double bytes) { TransferCapped(core, bytes, nullptr); }

void HbmArbiter::TransferCapped(int core, double bytes, const double* cap) {
  Flow f{core, bytes, 0, cap, {}};
  Advance();
  flows_.push_back(&f);
  Reschedule();
  sc_core::wait(f.done);
}

void HbmArbiter::Recompute() {
  Advance();
  Reschedule();
}

void HbmArbiter::Advance() {
  const Picos now = Now();
  for (Flow* f : flows_) f->remaining -= f->rate * static_cast<double>(now - last_) / 1000.0;
  last_ = now;
}

void HbmArbiter::ShareStack() {
  std::array<int, kMaxCores> per_core{};
  for (const Flow* f : flows_) ++per_core[f->core];
  double demand = 0;
  for (Flow* f : flows_) {
    const double cap = f->cap != nullptr ? *f->cap : engine_bw_;
    f->rate = std::min(cap, core_bw_ / static_cast<double>(per_core[f->core]));
    demand += f->rate;
  }
  if (demand <= stack_bw_ * (1 + kFitTolerance)) return;
  // Water-filling: the smallest caps are granted first, the rest share what is left.
  std::vector<Flow*> order = flows_;
  std::stable_sort(order.begin(), order.end(), [](const Flow* a, const Flow* b) { return a->rate < b->rate; });
  double left = stack_bw_;
  for (size_t i = 0; i < order.size(); ++i) {
    order[i]->rate = std::min(order[i]->rate, left / static_cast<double>(order.size() - i));
    left -= order[i]->rate;
  }
}

void HbmArbiter::Reschedule() {
  tick_.cancel();
  if (flows_.empty()) return;
  ShareStack();
  Picos dt = -1;
  for (const Flow* f : flows_) {
    if (f->rate <= 0) continue;  // starved until another flow ends
    const double ps = std::max(0.0, f->remaining / f->rate) * 1000.0;
    // A core's flow ends at the ps after its last byte; a capped flow at the
    // nearest ps (see TransferCapped; OnTick accepts its half-ps remainder).
    const Picos t = static_cast<Picos>(f->cap != nullptr ? std::llround(ps) : std::ceil(ps));
    if (dt < 0 || t < dt) dt = t;
  }
  if (dt >= 0) tick_.notify(Ps(dt));
}

void HbmArbiter::OnTick() {
  Advance();
  auto finished = std::stable_partition(flows_.begin(), flows_.end(), [](const Flow* f) {
    const double left = f->cap != nullptr ? f->remaining - f->rate * 0.0005 : f->remaining;  // half a ps of bytes
    return left > kDoneBytes;
  });
  for (auto it = finished; it != flows_.end(); ++it) (*it)->done.notify();
  flows_.erase(finished, flows_.end());
  Reschedule();
}

}  // namespace nsim
