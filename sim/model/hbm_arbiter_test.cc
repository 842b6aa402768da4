// HbmArbiter's flows end at exactly the picoseconds of the fluid model it
// implements, computed here the plain way: at every start and end, charge
// each flow its rate for the elapsed time, recompute every flow's rate
// (water-filling when the stack is oversubscribed) and take the earliest
// end. The arbiter shortcuts this (one shared rate for one core's flows, no
// work for zero elapsed time, an incremental least remaining); the ends
// must not move by a picosecond.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "sim/model/hbm_arbiter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <vector>

#include <systemc>

#include "sim/model/run_state.h"
#include "sim/model/sim_host.h"

namespace nsim {
namespace {

struct Bandwidths {
  double stack, core, engine;  // bytes per ns
};

struct FlowSpec {
  Picos start;  // after the scenario's beginning
  int core;
  double bytes;
  bool capped;  // at `cap` instead of the engine bandwidth
};

constexpr double kCap = 9.5;  // bytes per ns of the capped flows

// The model, flow by flow (what the arbiter computed before its shortcuts).
class Reference {
 public:
  Reference(Bandwidths bw, std::vector<FlowSpec> specs) : bw_(bw), specs_(std::move(specs)) {}

  std::vector<Picos> Ends() {
    std::vector<size_t> order(specs_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return specs_[a].start < specs_[b].start; });
    std::vector<Picos> ends(specs_.size(), -1);
    size_t next = 0;
    while (next < order.size() || tick_ >= 0) {
      // An end at the same time as a start comes first (the arbiter's tick is
      // a method; a flow starts from a thread).
      if (tick_ >= 0 && (next == order.size() || tick_ <= specs_[order[next]].start)) {
        Tick(&ends);
      } else {
        const FlowSpec& s = specs_[order[next]];
        Advance(s.start);
        flows_.push_back({order[next], s.core, s.bytes, 0, s.capped});
        ++next;
        Reschedule();
      }
    }
    return ends;
  }

 private:
  struct Flow {
    size_t id;
    int core;
    double remaining, rate;
    bool capped;
  };
  void Advance(Picos now) {
    for (Flow& f : flows_) f.remaining -= f.rate * static_cast<double>(now - last_) / 1000.0;
    last_ = now;
  }
  void Tick(std::vector<Picos>* ends) {
    Advance(tick_);
    std::vector<Flow> kept;
    for (const Flow& f : flows_) {
      const double left = f.capped ? f.remaining - f.rate * 0.0005 : f.remaining;
      if (left > 1e-6) kept.push_back(f);
      else (*ends)[f.id] = tick_;
    }
    flows_ = kept;
    Reschedule();
  }
  void Reschedule() {
    tick_ = -1;
    if (flows_.empty()) return;
    std::array<int, 16> per_core{};
    for (const Flow& f : flows_) ++per_core[f.core];
    double demand = 0;
    for (Flow& f : flows_) {
      f.rate = std::min(f.capped ? kCap : bw_.engine, bw_.core / static_cast<double>(per_core[f.core]));
      demand += f.rate;
    }
    if (demand > bw_.stack * (1 + 1e-12)) {
      std::vector<Flow*> order;
      for (Flow& f : flows_) order.push_back(&f);
      std::stable_sort(order.begin(), order.end(), [](const Flow* a, const Flow* b) { return a->rate < b->rate; });
      double left = bw_.stack;
      for (size_t i = 0; i < order.size(); ++i) {
        order[i]->rate = std::min(order[i]->rate, left / static_cast<double>(order.size() - i));
        left -= order[i]->rate;
      }
    }
    Picos dt = -1;
    for (const Flow& f : flows_) {
      if (f.rate <= 0) continue;
      const double ps = std::max(0.0, f.remaining / f.rate) * 1000.0;
      const Picos t = static_cast<Picos>(f.capped ? std::llround(ps) : std::ceil(ps));
      if (dt < 0 || t < dt) dt = t;
    }
    if (dt >= 0) tick_ = last_ + dt;
  }

  Bandwidths bw_;
  std::vector<FlowSpec> specs_;
  std::vector<Flow> flows_;
  Picos last_ = 0;
  Picos tick_ = -1;
};

// How a flow's thread starts it: TransferCapped at its start (as a copy
// does), or without blocking, StartFlow (as the DMA module does; ends told to
// a listener) some delay before its start.
enum class Start { kAtStart, kListener };

// Notes when each StartFlow flow ends.
class EndsListener : public FlowListener {
 public:
  EndsListener(std::vector<Picos>& ends, Picos t0) : ends_(ends), t0_(t0) {}
  void FlowDone(int tag) override { ends_[tag] = Now() - t0_; }

 private:
  std::vector<Picos>& ends_;
  Picos t0_;
};

// The same flows through a real HbmArbiter (an otherwise unused stack of the
// process's SystemC model), each started by its own thread.
std::vector<Picos> ArbiterEnds(Bandwidths bw, const std::vector<FlowSpec>& specs, Start how) {
  HbmArbiter& stack = SimHost::Get().stack_module(SimHost::kMaxStacks - 1);
  stack.Configure(bw.stack, bw.core, bw.engine);
  const Picos t0 = Now();
  std::vector<Picos> ends(specs.size(), -1);
  static const double cap = kCap;
  EndsListener listener(ends, t0);
  for (size_t i = 0; i < specs.size(); ++i) {
    sc_core::sc_spawn([&stack, &specs, &ends, &listener, i, t0, how] {
      const FlowSpec& s = specs[i];
      const Picos delay = std::min<Picos>(s.start, 1 + static_cast<Picos>(i % 3) * 6000);  // a few setups
      if (how == Start::kListener && !s.capped) {
        sc_core::wait(Ps(s.start - delay));
        const auto join = i % 2 == 0 ? HbmArbiter::Join::kOnTick : HbmArbiter::Join::kAfterTick;
        stack.StartFlow(s.core, s.bytes, Now() + delay, join, &listener, static_cast<int>(i));
        return;
      }
      sc_core::wait(Ps(s.start));
      stack.TransferCapped(s.core, s.bytes, s.capped ? &cap : nullptr);
      ends[i] = Now() - t0;
    });
  }
  sc_core::sc_start();
  return ends;
}

void ExpectSameEnds(Bandwidths bw, const std::vector<FlowSpec>& specs) {
  const std::vector<Picos> want = Reference(bw, specs).Ends();
  for (Start how : {Start::kAtStart, Start::kListener}) {
    const std::vector<Picos> got = ArbiterEnds(bw, specs, how);
    const char* way = how == Start::kAtStart ? " started at its start" : " started by StartFlow";
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_GE(want[i], 0) << "flow " << i;
      EXPECT_EQ(got[i], want[i]) << "flow " << i << " of " << want.size() << way;
    }
  }
}

// One core's DMA pieces, many starting together: the shared-rate path.
TEST(HbmArbiter, OneCoreEndsAsTheModel) {
  std::mt19937 rng(7);
  const double sizes[] = {64, 1000, 4096, 12345, 65536, 3};
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<FlowSpec> specs;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      specs.push_back({static_cast<Picos>(rng() % 6) * 250000 + static_cast<Picos>(rng() % 3), 0,
                       sizes[rng() % 6], false});
    }
    ExpectSameEnds({750, 375, 27.3}, specs);
  }
}

// The engine cap binding (few flows) and the core share binding (many).
TEST(HbmArbiter, OneCoreEngineAndShareBound) {
  std::vector<FlowSpec> specs;
  for (int i = 0; i < 24; ++i) specs.push_back({i * 1000, 0, 50000.0 + i, false});
  ExpectSameEnds({750, 375, 27.3}, specs);
  ExpectSameEnds({750, 100, 27.3}, specs);
}

// A flow a hair short of its end when another starts: it ends at the
// picosecond its own end was computed for, not at the other's start (where
// its remainder is below the arbiter's done tolerance).
TEST(HbmArbiter, AStartEndsNoFlowEarly) {
  const std::vector<FlowSpec> specs = {{0, 0, 27.3 + 1e-7, false}, {1000, 0, 64, false}};
  ASSERT_EQ(Reference({750, 375, 27.3}, specs).Ends()[0], 1001);
  ExpectSameEnds({750, 375, 27.3}, specs);
}

// Flows an idle stack is asked for one at a time (StartFlow, kAfterTick: the
// stack ticks only at their ends), and others asked for while such a flow
// waits for its start, or once it has started: every end as the model's.
TEST(HbmArbiter, LoneFlowsEndAsTheModel) {
  const Bandwidths bw{750, 375, 27.3};
  const std::vector<FlowSpec> specs = {
      {10000, 0, 4096, false},   // alone throughout
      {500000, 0, 8192, false},  // alone until the next joins mid-way
      {600000, 0, 64, false},    // asked after that one started
      {1200000, 0, 2048, false},  // alone when asked, with company before its start
      {1200500, 0, 512, false},   // asked while the one above waits for its start
  };
  const std::vector<Picos> asked = {0, 400000, 550000, 1000000, 1100000};
  HbmArbiter& stack = SimHost::Get().stack_module(SimHost::kMaxStacks - 1);
  stack.Configure(bw.stack, bw.core, bw.engine);
  const Picos t0 = Now();
  std::vector<Picos> ends(specs.size(), -1);
  EndsListener listener(ends, t0);
  for (size_t i = 0; i < specs.size(); ++i) {
    sc_core::sc_spawn([&, i] {
      sc_core::wait(Ps(asked[i]));
      stack.StartFlow(specs[i].core, specs[i].bytes, t0 + specs[i].start, HbmArbiter::Join::kAfterTick, &listener,
                      static_cast<int>(i));
    });
  }
  sc_core::sc_start();
  const std::vector<Picos> want = Reference(bw, specs).Ends();
  for (size_t i = 0; i < specs.size(); ++i) EXPECT_EQ(ends[i], want[i]) << "flow " << i;
}

// Flows withdrawn before their start (a DMA engine's pick undone) leave the
// others' ends as if they had never been asked for: one waiting behind a
// running flow (its start had moved the tick), one alone on the idle stack.
TEST(HbmArbiter, CancelledFlowsChangeNothing) {
  const Bandwidths bw{750, 375, 27.3};
  const std::vector<FlowSpec> specs = {{0, 0, 4096, false}, {260000, 0, 512, false}, {900000, 0, 100, false}};
  HbmArbiter& stack = SimHost::Get().stack_module(SimHost::kMaxStacks - 1);
  stack.Configure(bw.stack, bw.core, bw.engine);
  const Picos t0 = Now();
  std::vector<Picos> ends(specs.size() + 2, -1);
  EndsListener listener(ends, t0);
  const int kBehind = 3, kAlone = 4;
  sc_core::sc_spawn([&] {
    stack.StartFlow(0, 4096, t0, HbmArbiter::Join::kAfterTick, &listener, 0);
    stack.StartFlow(0, 777, t0 + 100000, HbmArbiter::Join::kOnTick, &listener, kBehind);
    stack.StartFlow(0, 512, t0 + 260000, HbmArbiter::Join::kOnTick, &listener, 1);
    sc_core::wait(Ps(50000));
    stack.CancelFlow(&listener, kBehind);
    sc_core::wait(Ps(550000));  // the stack is idle from ~170 ns to 260 ns and after ~280 ns
    stack.StartFlow(0, 999, t0 + 800000, HbmArbiter::Join::kAfterTick, &listener, kAlone);
    sc_core::wait(Ps(100000));
    stack.CancelFlow(&listener, kAlone);
    stack.StartFlow(0, 100, t0 + 900000, HbmArbiter::Join::kAfterTick, &listener, 2);
  });
  sc_core::sc_start();
  const std::vector<Picos> want = Reference(bw, specs).Ends();
  for (size_t i = 0; i < specs.size(); ++i) EXPECT_EQ(ends[i], want[i]) << "flow " << i;
  EXPECT_EQ(ends[kBehind], -1);
  EXPECT_EQ(ends[kAlone], -1);
}

// The stack oversubscribed by one core's flows (water-filling), and several
// cores with capped flows (per-flow rates). Starts are distinct: with equal
// rates, water-filling gives each flow a rate by its start order (which for
// flows starting together is their threads' order, or the order
// StartFlow was called in).
TEST(HbmArbiter, SharedStackEndsAsTheModel) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<FlowSpec> specs;
    const int n = 1 + static_cast<int>(rng() % 30);
    const int cores = trial % 2 == 0 ? 1 : 3;
    for (int i = 0; i < n; ++i) {
      specs.push_back({i * 7919 + static_cast<Picos>(rng() % 5000), static_cast<int>(rng() % cores),
                       static_cast<double>(1 + rng() % 100000), cores > 1 && rng() % 4 == 0});
    }
    ExpectSameEnds({120, 375, 27.3}, specs);
  }
}

}  // namespace
}  // namespace nsim
