#include "profiler/lane_packer.h"

#include <gtest/gtest.h>

namespace nsim {
namespace prof {
namespace {

TEST(LanePackerTest, NestedAndSequentialSpansShareOneLane) {
  // [0,10] contains [1,3] and [3,4]; [10,12] follows; zero-length spans fit anywhere.
  EXPECT_EQ(PackNestedLanes({{0, 10}, {1, 3}, {3, 4}, {4, 4}, {10, 12}, {12, 12}}),
            (std::vector<int>{0, 0, 0, 0, 0, 0}));
}

TEST(LanePackerTest, PartialOverlapMovesToNextLane) {
  // Pipelined instructions: [5,9] and [7,11] overlap without nesting.
  EXPECT_EQ(PackNestedLanes({{5, 9}, {7, 11}, {9, 10}, {11, 13}}),
            (std::vector<int>{0, 1, 0, 0}));
}

TEST(LanePackerTest, DeepOverlapUsesAsManyLanesAsNeeded) {
  EXPECT_EQ(PackNestedLanes({{0, 4}, {1, 5}, {2, 6}, {3, 7}, {4, 8}}),
            (std::vector<int>{0, 1, 2, 3, 0}));
}

}  // namespace
}  // namespace prof
}  // namespace nsim
