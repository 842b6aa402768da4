#include "sim/kernel/ap_cache.h"

#include <string>

#include <gtest/gtest.h>

namespace nsim {
namespace {

AccessPattern Pattern(int tensor, int64_t offset, std::vector<ApDim> dims) {
  AccessPattern ap;
  ap.tensor = tensor;
  ap.offset = offset;
  ap.dims = dims;
  return ap;
}

TEST(ApCacheTest, EqualPatternsHashEquallyAndDifferentOnesDiffer) {
  const AccessPattern a = Pattern(1, 8, {{1, 4}, {1, 64}});
  EXPECT_EQ(HashAccessPattern(a), HashAccessPattern(Pattern(1, 8, {{1, 4}, {1, 64}})));
  EXPECT_NE(HashAccessPattern(a), HashAccessPattern(Pattern(2, 8, {{1, 4}, {1, 64}})));
  EXPECT_NE(HashAccessPattern(a), HashAccessPattern(Pattern(1, 9, {{1, 4}, {1, 64}})));
  EXPECT_NE(HashAccessPattern(a), HashAccessPattern(Pattern(1, 8, {{1, 4}, {2, 64}})));
  EXPECT_NE(HashAccessPattern(a), HashAccessPattern(Pattern(1, 8, {{1, 4}})));
}

TEST(ApCacheTest, FindsWhatWasPutForAnEqualPatternOnly) {
  ApCache<std::string> cache(4);
  const AccessPattern a = Pattern(0, 0, {{1, 8}});
  const uint64_t h = HashAccessPattern(a);
  EXPECT_EQ(cache.Find(a, h), nullptr);
  cache.Put(a, h, "a");
  ASSERT_NE(cache.Find(Pattern(0, 0, {{1, 8}}), h), nullptr);
  EXPECT_EQ(*cache.Find(Pattern(0, 0, {{1, 8}}), h), "a");
  // Same hash handed in for another pattern (as a collision would): no false hit.
  EXPECT_EQ(cache.Find(Pattern(0, 1, {{1, 8}}), h), nullptr);
}

TEST(ApCacheTest, StaysCorrectWhenPatternsEvictEachOther) {
  ApCache<int> cache(1);  // two slots: most patterns collide
  std::vector<AccessPattern> aps;
  for (int i = 0; i < 50; ++i) aps.push_back(Pattern(0, i, {{1, 4}}));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 50; ++i) {
      const uint64_t h = HashAccessPattern(aps[i]);
      if (const int* v = cache.Find(aps[i], h)) {
        EXPECT_EQ(*v, i);
      } else {
        cache.Put(aps[i], h, i);
      }
      EXPECT_EQ(*cache.Find(aps[i], h), i);
    }
  }
}

TEST(ApCacheTest, SizedForTheKernel) {
  EXPECT_EQ(ApCache<int>::SlotsLog2For(0), 4);
  EXPECT_EQ(ApCache<int>::SlotsLog2For(8), 4);
  EXPECT_EQ(ApCache<int>::SlotsLog2For(9), 5);
  EXPECT_EQ(ApCache<int>::SlotsLog2For(1000), 11);
  EXPECT_EQ(ApCache<int>::SlotsLog2For(1000000), 12);
}

}  // namespace
}  // namespace nsim
