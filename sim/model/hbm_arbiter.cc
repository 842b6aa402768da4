#include "sim/model/hbm_arbiter.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "sim/base/error.h"
#include "sim/model/run_state.h"
#include "sim/model/sc_time_ps.h"

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

void HbmArbiter::TransferCapped(int core, double bytes, const double* cap) {
  Flow f{core, bytes, 0, cap, event_pool_.Acquire(), nullptr, 0};
  CatchUpLone();
  Advance();
  Add(&f);
  Reschedule();
  sc_core::wait(*f.done);
  event_pool_.Release(f.done);  // OnTick has notified it and forgotten the flow
}

void HbmArbiter::StartFlow(int core, double bytes, Picos start, Join join, FlowListener* who, int tag) {
  Flow* f = flow_pool_.Acquire();
  *f = {core, bytes, 0, nullptr, nullptr, who, tag};
  Delay(f, start, join);
}

// Nothing else has changed since the flow was asked for, so every other
// flow's state is as it would be without it; only the pending tick may have
// been moved to its start, and is moved back: a tick at a time with nothing
// to do would still charge the flows there (Advance), in two roundings
// instead of one.
void HbmArbiter::CancelFlow(FlowListener* who, int tag) {
  auto at = delayed_.end();
  while (at != delayed_.begin()) {
    --at;
    if (at->flow->listener == who && at->flow->tag == tag) break;
  }
  if (at == delayed_.end() || at->flow->listener != who || at->flow->tag != tag) {
    throw SimError("internal: HbmArbiter::CancelFlow of a flow not waiting to start");
  }
  flow_pool_.Release(at->flow);
  delayed_.erase(at);
  lone_ = false;  // a lone flow was the only one waiting
  RetickWithoutCharge();
}

// The tick an arbiter without the cancelled flow would have pending: at the
// next end or delayed start (what Reschedule and Delay keep), or none.
void HbmArbiter::RetickWithoutCharge() {
  Picos next = end_at_;
  if (!delayed_.empty() && (next < 0 || delayed_.front().start < next)) next = delayed_.front().start;
  if (next == tick_at_) return;
  tick_.cancel();
  tick_at_ = next;
  if (next >= 0) tick_.notify(ScPs(next - Now()));
}

// Mostly asked in start order: inserted at or near the back.
void HbmArbiter::Delay(Flow* f, Picos start, Join join) {
  CatchUpLone();
  // A kOnTick flow usually has company starting with it (the other pieces
  // of its transfer): only a kAfterTick one is tried alone.
  if (join == Join::kAfterTick && flows_.empty() && delayed_.empty() && StartLone(f, start)) return;
  auto at = delayed_.end();
  while (at != delayed_.begin() &&
         (std::prev(at)->start > start || (std::prev(at)->start == start && std::prev(at)->join > join))) {
    --at;
  }
  delayed_.insert(at, {start, join, f});
  if (tick_at_ >= 0 && tick_at_ <= start) return;  // SystemC keeps the earlier pending tick
  tick_.notify(ScPs(start - Now()));
  tick_at_ = start;
}

void HbmArbiter::Add(Flow* f) {
  if (flows_.empty()) {
    least_ = f->remaining;
    least_known_ = true;
  } else if (least_known_) {
    least_ = std::min(least_, f->remaining);
  }
  flows_.push_back(f);
  if (per_core_[f->core]++ == 0) ++cores_;
  if (f->cap != nullptr) ++capped_;
}

void HbmArbiter::Remove(const Flow& f) {
  if (--per_core_[f.core] == 0) --cores_;
  if (f.cap != nullptr) --capped_;
}

void HbmArbiter::Recompute() {
  CatchUpLone();
  Advance();
  Reschedule();
}

// Zero elapsed time charges nothing (rate x 0 subtracts exactly 0), so it is
// skipped. With one shared rate every flow subtracts the same amount, the
// least remaining too, bit for bit.
void HbmArbiter::Advance() {
  const Picos now = Now();
  if (now == last_) return;
  const double elapsed = static_cast<double>(now - last_);
  last_ = now;
  if (rates_shared_) {
    const double moved = shared_rate_ * elapsed / 1000.0;
    for (Flow* f : flows_) f->remaining -= moved;
    least_ -= moved;
    return;
  }
  for (Flow* f : flows_) f->remaining -= f->rate * elapsed / 1000.0;
  least_known_ = false;
}

void HbmArbiter::ShareStack() {
  rates_shared_ = OneCoreUncapped() && ShareOneRate();
  if (rates_shared_) return;
  double demand = 0;
  for (Flow* f : flows_) {
    const double cap = f->cap != nullptr ? *f->cap : engine_bw_;
    f->rate = std::min(cap, core_bw_ / static_cast<double>(per_core_[f->core]));
    demand += f->rate;
  }
  if (demand <= stack_bw_ * (1 + kFitTolerance)) return;
  WaterFill();
}

// Every flow's rate is min(engine, core share / flows); their sum, added up
// flow by flow, must fit the stack. That sum is within n^2 ulps of n x rate
// (< 1e-10 relative for n <= 1000), so a product clearly below the stack's
// bandwidth decides it as the sum would, without adding.
bool HbmArbiter::ShareOneRate() {
  constexpr size_t kBoundedFlows = 1000;
  const double n = static_cast<double>(flows_.size());
  const double rate = std::min(engine_bw_, core_bw_ / n);
  const double fits = stack_bw_ * (1 + kFitTolerance);
  if (flows_.size() > kBoundedFlows || !(n * rate * (1 + 1e-9) <= fits)) {
    double demand = 0;
    for (size_t i = 0; i < flows_.size(); ++i) demand += rate;
    if (!(demand <= fits)) return false;
  }
  shared_rate_ = rate;
  return true;
}

// The smallest caps are granted first, the rest share what is left.
void HbmArbiter::WaterFill() {
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
  tick_at_ = -1;
  Picos dt = -1;
  if (!flows_.empty()) {
    ShareStack();
    dt = NextEnd();
  }
  end_at_ = dt < 0 ? -1 : Now() + dt;
  if (!delayed_.empty()) {
    const Picos start = delayed_.front().start - Now();
    if (dt < 0 || start < dt) dt = start;
  }
  if (dt >= 0) {
    tick_.notify(ScPs(dt));
    tick_at_ = Now() + dt;
  }
}

// A core's flow ends at the ps after its last byte; a capped flow at the
// nearest ps (see TransferCapped; OnTick accepts its half-ps remainder).
Picos HbmArbiter::NextEnd() {
  if (rates_shared_) {
    // ceil(max(0, x / rate) * 1000) never decreases with x: the least
    // remaining gives the earliest end, as computing every flow's would.
    if (shared_rate_ <= 0) return -1;  // starved
    return static_cast<Picos>(std::ceil(std::max(0.0, Least() / shared_rate_) * 1000.0));
  }
  Picos dt = -1;
  for (const Flow* f : flows_) {
    if (f->rate <= 0) continue;  // starved until another flow ends
    const double ps = std::max(0.0, f->remaining / f->rate) * 1000.0;
    const Picos t = static_cast<Picos>(f->cap != nullptr ? std::llround(ps) : std::ceil(ps));
    if (dt < 0 || t < dt) dt = t;
  }
  return dt;
}

double HbmArbiter::Least() {
  if (!least_known_) {
    least_ = flows_.front()->remaining;
    for (const Flow* f : flows_) least_ = std::min(least_, f->remaining);
    least_known_ = true;
  }
  return least_;
}

// Flows that end at the same time as others start end first (as when the
// later ones start from their threads: the tick is a method, and SystemC runs
// methods before threads).
void HbmArbiter::StartDue() {
  const Picos now = Now();
  while (!delayed_.empty() && delayed_.front().start <= now) {
    Add(delayed_.front().flow);
    delayed_.pop_front();
  }
}

// A flow asked for while the stack is idle: if nothing else happens on the
// stack until its end, the tick at its start would only add it and work out
// its end, so that is done now and the stack ticks once, at its end. The
// flow waits in `delayed_` as `lone_`; anything that reaches the stack first
// catches up (CatchUpLone). False if the flow would never end alone.
bool HbmArbiter::StartLone(Flow* f, Picos start) {
  Add(f);  // worked out as the tick at `start` would: alone, from its start
  ShareStack();
  const Picos dt = NextEnd();
  flows_.pop_back();
  Remove(*f);
  if (dt < 0) return false;
  delayed_.push_back({start, Join::kOnTick, f});
  lone_ = true;
  lone_end_ = start + dt;
  if (tick_at_ >= 0) tick_.cancel();
  tick_.notify(ScPs(lone_end_ - Now()));
  tick_at_ = lone_end_;
  return true;
}

// What the tick at the lone flow's start would have done, done now: it
// joins the idle stack at its start (with nothing to charge, last_ moves
// there), at the rates StartLone worked out (nothing has reached the stack
// since), ending at the pending tick. Before its start it becomes an
// ordinary delayed flow, with the ordinary tick at its start.
void HbmArbiter::CatchUpLone() {
  if (!lone_) return;
  lone_ = false;
  const Delayed d = delayed_.front();
  if (Now() < d.start) {
    tick_.cancel();
    tick_.notify(ScPs(d.start - Now()));
    tick_at_ = d.start;
    return;
  }
  delayed_.pop_front();
  last_ = d.start;
  Add(d.flow);
  end_at_ = lone_end_;
}

// Finished flows are told in the order they started: blocked threads by an
// immediate notification (they run once this method returns), StartFlow's
// listeners by a call once the tick's work is done, as such a thread would.
void HbmArbiter::OnTick() {
  tick_at_ = -1;
  CatchUpLone();
  Advance();
  if (end_at_ >= 0 && end_at_ <= Now()) EndFinished();
  StartDue();
  Reschedule();
  TellEnded();
}

// A listener may start its next flow at once: the ended flow's storage is
// free before it is told.
void HbmArbiter::TellEnded() {
  for (size_t i = 0; i < ended_.size(); ++i) {
    FlowListener* who = ended_[i]->listener;
    const int tag = ended_[i]->tag;
    flow_pool_.Release(ended_[i]);
    who->FlowDone(tag);
  }
  ended_.clear();
}

void HbmArbiter::EndFinished() {
  size_t kept = 0;
  for (Flow* f : flows_) {
    const double left = f->cap != nullptr ? f->remaining - f->rate * 0.0005 : f->remaining;  // half a ps of bytes
    if (left > kDoneBytes) {
      flows_[kept++] = f;
    } else {
      if (f->listener != nullptr) {
        ended_.push_back(f);
      } else {
        f->done->notify();
      }
      Remove(*f);
    }
  }
  flows_.resize(kept);
  least_known_ = false;
}

}  // namespace nsim
