// ReusePool hands out released objects again (as they were left) before it
// makes new ones, and its objects stay where they are as it grows.
#include "sim/model/reuse_pool.h"

#include <gtest/gtest.h>

#include <vector>

namespace nsim {
namespace {

TEST(ReusePool, ReleasedObjectsComeBackFirst) {
  ReusePool<int> pool;
  int* a = pool.Acquire();
  int* b = pool.Acquire();
  EXPECT_NE(a, b);
  *a = 7;
  pool.Release(a);
  EXPECT_EQ(pool.Acquire(), a);
  EXPECT_EQ(*a, 7);  // as it was left
  std::vector<int*> many;
  for (int i = 0; i < 10000; ++i) {
    many.push_back(pool.Acquire());
    *many.back() = i;
  }
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(*many[i], i);  // no object moved
  pool.Clear();
  EXPECT_EQ(*pool.Acquire(), 0);  // a new one
}

}  // namespace
}  // namespace nsim
