// IntervalUnion folds intervals as it goes and still gives the exact union
// length (the one sorting and merging all intervals gives).
#include "sim/model/interval_union.h"

#include <gtest/gtest.h>

#include <random>

namespace nsim {
namespace {

Picos BruteForce(std::vector<std::pair<Picos, Picos>> iv) {
  std::sort(iv.begin(), iv.end());
  Picos total = 0, s = 0, e = -1;
  for (const auto& [a, b] : iv) {
    if (a > e) {
      total += std::max<Picos>(0, e - s);
      s = a;
      e = b;
    } else {
      e = std::max(e, b);
    }
  }
  return total + std::max<Picos>(0, e - s);
}

TEST(IntervalUnion, FoldingKeepsTheExactUnionLength) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    // Intervals whose starts never go below a rising floor, added in an
    // order that is not sorted (a window of them shuffled), folded at that floor.
    std::vector<std::pair<Picos, Picos>> all;
    Picos floor = 0;
    for (int i = 0; i < 400; ++i) {
      const Picos s = floor + static_cast<Picos>(rng() % 50);
      all.push_back({s, s + static_cast<Picos>(rng() % 80)});
      floor += static_cast<Picos>(rng() % 20);
    }
    IntervalUnion u;
    for (size_t i = 0; i < all.size(); i += 8) {
      const size_t end = std::min(all.size(), i + 8);
      std::vector<std::pair<Picos, Picos>> batch(all.begin() + i, all.begin() + end);
      std::shuffle(batch.begin(), batch.end(), rng);
      for (const auto& [s, e] : batch) u.Add(s, e);
      Picos bound = INT64_MAX;  // the earliest start still to come
      for (size_t j = end; j < all.size(); ++j) bound = std::min(bound, all[j].first);
      u.Fold(bound);
    }
    EXPECT_EQ(u.Total(), BruteForce(all)) << "round " << round;
  }
}

TEST(IntervalUnion, TouchingAndEmptyIntervals) {
  IntervalUnion u;
  u.Add(10, 20);
  u.Add(20, 30);  // touches: one run of 20
  u.Add(5, 5);    // empty
  u.Fold(30);
  u.Add(30, 35);
  EXPECT_EQ(u.Total(), 25);
}

}  // namespace
}  // namespace nsim
