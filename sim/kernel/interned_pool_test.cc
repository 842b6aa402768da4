// IdIndex, InternedPool and ApDims: what the kernel's packed storage relies
// on to keep each distinct access pattern, scalar and dims list once.
#include "sim/kernel/interned_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "sim/kernel/ap_dims.h"

namespace nsim {
namespace {

TEST(IdIndex, FindsEachIdAmongCollidingHashesAndAcrossGrowth) {
  IdIndex index;
  std::vector<int64_t> values;
  // Every value has one of three hashes: Find must tell them apart by `same`,
  // and keep finding them after the table grows (16 slots, then more).
  for (int64_t v = 0; v < 1000; ++v) {
    const uint64_t h = static_cast<uint64_t>(v % 3) << 40;
    ASSERT_EQ(index.Find(h, [&](uint32_t id) { return values[id] == v; }), -1) << v;
    index.Insert(h, static_cast<uint32_t>(values.size()));
    values.push_back(v);
  }
  for (int64_t v = 0; v < 1000; ++v) {
    const uint64_t h = static_cast<uint64_t>(v % 3) << 40;
    EXPECT_EQ(index.Find(h, [&](uint32_t id) { return values[id] == v; }), v);
  }
  EXPECT_EQ(index.Find(uint64_t{7} << 40, [](uint32_t) { return true; }), -1);  // a hash never inserted
}

TEST(InternedPool, KeepsEachValueOnceAtAStableAddressAndCopiesHaveTheirOwn) {
  InternedPool<int64_t> pool;
  const auto intern = [&pool](int64_t v) {
    return pool.Intern(v, static_cast<uint64_t>(v % 5), [v](int64_t x) { return x == v; });
  };
  const uint32_t seven = intern(7);
  const int64_t* at = &pool[seven];
  for (int64_t v = 0; v < 5000; ++v) intern(v);
  EXPECT_EQ(intern(7), seven);
  EXPECT_EQ(&pool[seven], at);  // 5000 more values did not move it
  EXPECT_EQ(intern(123456), 5000u);
  const InternedPool<int64_t> copy = pool;
  EXPECT_EQ(copy[seven], 7);
  EXPECT_NE(&copy[seven], &pool[seven]);
}

TEST(ApDims, EqualListsAreOneCopyAndReadLikeTheVector) {
  const std::vector<ApDim> v{{64, 8}, {1, 64}};
  const ApDims a(v), b{{64, 8}, {1, 64}}, c{{64, 8}, {1, 32}};
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.begin(), b.begin());  // interned: the same storage
  EXPECT_NE(a, c);
  EXPECT_EQ(a.vector(), v);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1], (ApDim{1, 64}));
  EXPECT_EQ(a.back(), (ApDim{1, 64}));
  EXPECT_EQ(a.With(1, {1, 32}), c);
  EXPECT_EQ(a.vector(), v);  // With leaves the list it was called on alone
  EXPECT_TRUE(ApDims().empty());
  EXPECT_EQ(ApDims(), ApDims(std::vector<ApDim>{}));
}

TEST(ApDims, InterningFromSeveralThreadsGivesOneCopyPerList) {
  std::vector<ApDims> seen(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &seen] {
      for (int i = 0; i < 2000; ++i) ApDims{{i, 3}, {1, t}};
      seen[t] = ApDims{{4242, 1}, {1, 1}};
    });
  }
  for (std::thread& t : threads) t.join();
  for (const ApDims& d : seen) EXPECT_EQ(d, seen[0]);
}

}  // namespace
}  // namespace nsim
