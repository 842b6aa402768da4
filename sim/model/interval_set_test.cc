// IntervalSet gives the union MergeIntervals gives (same blocks, same
// length) whatever the order the intervals come in: in order of start, in
// order of end (the fast paths) and shuffled. RunningUnion gives its length
// for intervals in order of start.
#include "sim/model/interval_set.h"

#include <gtest/gtest.h>

#include <random>

#include "sim/model/interval_union.h"

namespace nsim {
namespace {

Intervals RandomIntervals(std::mt19937_64& rng, int n, Picos span, Picos max_len) {
  Intervals iv;
  for (int i = 0; i < n; ++i) {
    const Picos s = static_cast<Picos>(rng() % static_cast<uint64_t>(span));
    iv.push_back({s, s + static_cast<Picos>(rng() % static_cast<uint64_t>(max_len)) - 2});  // some empty
  }
  return iv;
}

void ExpectSameUnion(const Intervals& iv, const std::string& order) {
  IntervalSet set;
  for (const auto& [s, e] : iv) set.Add(s, e);
  const Intervals merged = MergeIntervals(iv);
  EXPECT_EQ(set.Length(), IntervalsLength(merged)) << order;
  EXPECT_EQ(Intervals(set.begin(), set.end()), merged) << order;
}

TEST(IntervalSet, SameUnionAsMergeIntervalsInAnyOrder) {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 200; ++round) {
    // Sparse and dense sets: few or many overlaps.
    Intervals iv = RandomIntervals(rng, 1 + static_cast<int>(rng() % 300), round % 2 ? 100000 : 2000, 60);
    std::shuffle(iv.begin(), iv.end(), rng);
    ExpectSameUnion(iv, "shuffled, round " + std::to_string(round));
    std::sort(iv.begin(), iv.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    ExpectSameUnion(iv, "by end, round " + std::to_string(round));
    std::sort(iv.begin(), iv.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    ExpectSameUnion(iv, "by start, round " + std::to_string(round));
    RunningUnion running;
    for (const auto& [s, e] : iv) running.Add(s, e);
    EXPECT_EQ(running.Length(), IntervalsLength(MergeIntervals(iv))) << "running, round " << round;
  }
}

TEST(IntervalSet, TouchingMergesAndEmptyIsDropped) {
  IntervalSet set;
  set.Add(20, 30);
  set.Add(10, 20);  // touches from before: one block
  set.Add(5, 5);
  set.Add(40, 35);
  set.Add(30, 32);
  EXPECT_EQ(Intervals(set.begin(), set.end()), (Intervals{{10, 32}}));
  EXPECT_EQ(set.Length(), 22);
  set.Add(0, 3);  // before everything
  set.Add(1, 50);  // swallows both
  EXPECT_EQ(Intervals(set.begin(), set.end()), (Intervals{{0, 50}}));
  EXPECT_EQ(set.Length(), 50);
  RunningUnion running;
  running.Add(0, 10);
  running.Add(10, 12);  // touches
  running.Add(11, 11);
  running.Add(20, 25);
  EXPECT_EQ(running.Length(), 17);
  EXPECT_EQ(RunningUnion().Length(), 0);
}

}  // namespace
}  // namespace nsim
