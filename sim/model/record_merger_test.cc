// RecordMerger hands out exactly the records it was given, in the canonical
// order (start, engine, index) of record_order.h, whatever the interleaving of
// the engines' in-order runs, and moves them out before the run ends.
#include "sim/model/record_merger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

namespace nsim {
namespace {

bool Canonical(const InstructionRecord& a, const InstructionRecord& b) {
  return std::make_tuple(a.start, a.engine, a.index) < std::make_tuple(b.start, b.engine, b.index);
}

bool Same(const InstructionRecord& a, const InstructionRecord& b) {
  return a.engine == b.engine && a.index == b.index && a.start == b.start && a.end == b.end && a.wait == b.wait;
}

// Engines take turns as SystemC would run them: each issues a burst of
// records starting at or after both its clock and the current time (coarse
// times, so engines tie often), then stops at a wait or finishes.
TEST(RecordMerger, CanonicalOrderForAnyInterleaving) {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    std::array<bool, kNumEngines> active{};
    for (int e = 0; e < kNumEngines; ++e) active[e] = rng() % 4 != 0;
    std::vector<InstructionRecord> out, all;
    RecordMerger merger;
    const Picos launch = 7;
    merger.Reset(&out, active, launch);
    std::array<Picos, kNumEngines> clock;
    std::array<int, kNumEngines> issued{}, length{};
    clock.fill(launch);
    for (int e = 0; e < kNumEngines; ++e) length[e] = active[e] ? static_cast<int>(rng() % 3000) : 0;
    Picos now = 0;
    while (true) {
      std::vector<int> running;
      for (int e = 0; e < kNumEngines; ++e) {
        if (active[e]) running.push_back(e);
      }
      if (running.empty()) break;
      now += static_cast<Picos>(rng() % 3);
      const int e = running[rng() % running.size()];
      Picos t = std::max(clock[e], now);
      for (int burst = static_cast<int>(rng() % 40); burst > 0 && issued[e] < length[e]; --burst) {
        t += static_cast<Picos>(rng() % 3);
        const InstructionRecord r{static_cast<EngineId>(e), issued[e]++, t, t + 5, static_cast<Picos>(rng() % 9)};
        merger.Add(r);
        all.push_back(r);
      }
      clock[e] = t;
      if (issued[e] == length[e]) {
        active[e] = false;
        merger.Finished(static_cast<EngineId>(e), now);
      } else {
        merger.Stopped(static_cast<EngineId>(e), t, now);
      }
      ASSERT_EQ(merger.size(), static_cast<int64_t>(all.size()));
    }
    std::stable_sort(all.begin(), all.end(), Canonical);
    ASSERT_EQ(out.size(), all.size()) << "seed " << seed;
    for (size_t i = 0; i < all.size(); ++i) ASSERT_TRUE(Same(out[i], all[i])) << "seed " << seed << " record " << i;
  }
}

// Records behind every engine's clock are moved out while the run goes on:
// the queues hold only what the engines run ahead, not the whole run.
TEST(RecordMerger, MovesRecordsOutDuringTheRun) {
  std::vector<InstructionRecord> out;
  RecordMerger merger;
  std::array<bool, kNumEngines> active{};
  active[0] = active[1] = true;
  merger.Reset(&out, active, 0);
  for (int i = 0; i < 10000; ++i) {
    const int e = i % 2;
    merger.Add({static_cast<EngineId>(e), i / 2, i, i + 1, 0});
    merger.Stopped(static_cast<EngineId>(e), i, i);
  }
  EXPECT_GT(out.size(), 9000u);
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end(), Canonical));
  merger.Finished(EngineId{0}, 10000);
  merger.Finished(EngineId{1}, 10000);
  EXPECT_EQ(out.size(), 10000u);
}

}  // namespace
}  // namespace nsim
