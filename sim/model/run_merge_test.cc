// MergeInterleavedRuns sorts vectors that interleave in-order runs exactly as
// std::sort does, falls back to a sort when the runs are far apart or out of
// order, and keeps the records waiting in the merge bounded.
#include "sim/model/run_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace nsim {
namespace {

struct Rec {
  int64_t key = 0;
  int run = 0;
  int seq = 0;  // position within its run
  bool operator==(const Rec& o) const { return key == o.key && run == o.run && seq == o.seq; }
};

bool Less(const Rec& a, const Rec& b) {
  if (a.key != b.key) return a.key < b.key;
  if (a.run != b.run) return a.run < b.run;
  return a.seq < b.seq;
}

constexpr int kRuns = 5;

bool Merge(std::vector<Rec>* v, size_t max_waiting) {
  return MergeInterleavedRuns<kRuns>(
      v, [](const Rec& r) { return r.key; }, [](const Rec& r) { return r.run; }, Less, max_waiting);
}

// `count` records in `kRuns` runs with non-decreasing keys (ties included),
// interleaved as if each run were pushed at times near its keys, up to
// `skew` apart.
std::vector<Rec> Interleaved(std::mt19937* rng, int count, int64_t skew) {
  struct Pushed {
    int64_t time;
    Rec rec;
  };
  std::vector<Pushed> pushed;
  int64_t key[kRuns] = {}, last_push[kRuns] = {};
  int seq[kRuns] = {};
  for (int i = 0; i < count; ++i) {
    const int run = static_cast<int>((*rng)() % kRuns);
    key[run] += static_cast<int64_t>((*rng)() % 3);  // 0: a tie with the run's previous key
    // A run's records are pushed in order.
    last_push[run] = std::max(last_push[run], key[run] + static_cast<int64_t>((*rng)() % (skew + 1)));
    pushed.push_back({last_push[run], Rec{key[run], run, seq[run]++}});
  }
  std::sort(pushed.begin(), pushed.end(), [](const Pushed& a, const Pushed& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.rec.run != b.rec.run) return a.rec.run > b.rec.run;  // not the merge's order
    return a.rec.seq < b.rec.seq;
  });
  std::vector<Rec> out;
  for (const Pushed& p : pushed) out.push_back(p.rec);
  return out;
}

void ExpectSortsLikeStdSort(std::vector<Rec> v, size_t max_waiting, bool expect_merged) {
  std::vector<Rec> expected = v;
  std::sort(expected.begin(), expected.end(), Less);
  EXPECT_EQ(Merge(&v, max_waiting), expect_merged);
  EXPECT_EQ(v, expected);
}

TEST(RunMerge, EmptyAndSingle) {
  ExpectSortsLikeStdSort({}, 16, true);
  ExpectSortsLikeStdSort({{7, 3, 0}}, 16, true);
}

TEST(RunMerge, NearlyOrderedRunsAreMergedWithoutASort) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 50; ++trial) {
    ExpectSortsLikeStdSort(Interleaved(&rng, 1 + static_cast<int>(rng() % 3000), 20), 1 << 20, true);
  }
}

TEST(RunMerge, TiesBetweenRunsGoToTheLowerRun) {
  std::vector<Rec> v = {{5, 4, 0}, {5, 1, 0}, {5, 3, 0}, {5, 0, 0}, {5, 2, 0}, {5, 1, 1}};
  ExpectSortsLikeStdSort(v, 16, true);
}

TEST(RunMerge, RunsPushedOneAfterAnotherFallBackToASortAtTheBound) {
  std::vector<Rec> v;
  for (int run = kRuns - 1; run >= 0; --run) {
    for (int i = 0; i < 1000; ++i) v.push_back({i, run, i});
  }
  ExpectSortsLikeStdSort(v, 100, false);  // run 0's records sort first: the others wait
  ExpectSortsLikeStdSort(v, 1 << 20, true);
}

TEST(RunMerge, ARunOutOfOrderStillEndsSorted) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Rec> v = Interleaved(&rng, 500, 10);
    const size_t i = rng() % v.size(), j = rng() % v.size();
    if (v[i].run != v[j].run || v[i].key == v[j].key) continue;
    std::swap(v[i].key, v[j].key);  // two records of one run now out of order
    ExpectSortsLikeStdSort(v, 1 << 20, false);
  }
}

TEST(RunMerge, GivingUpMidwayKeepsEveryRecord) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Rec> v = Interleaved(&rng, 2000, 400);
    std::vector<Rec> expected = v;
    std::sort(expected.begin(), expected.end(), Less);
    Merge(&v, static_cast<size_t>(rng() % 64));
    EXPECT_EQ(v, expected);
  }
}

TEST(RunMerge, ARunOutOfOrderPastWhereTheMergeGaveUp) {
  std::vector<Rec> v;
  for (int run = kRuns - 1; run >= 0; --run) {
    for (int i = 0; i < 1000; ++i) v.push_back({i, run, i});
  }
  v[kRuns * 1000 - 1].key = -1;  // run 0's last record belongs first
  ExpectSortsLikeStdSort(v, 100, false);
}

TEST(RunMerge, KeysAtTheTypesMaximum) {
  constexpr int64_t kMax = INT64_MAX;
  ExpectSortsLikeStdSort({{kMax, 3, 0}, {kMax, 1, 0}, {1, 4, 0}, {kMax, 4, 1}}, 16, true);
}

}  // namespace
}  // namespace nsim
