// RoundRobinQueues picks the first ready head at or after its round-robin
// position, wrapping, and skips heads that are not ready yet.
#include "sim/model/round_robin_queues.h"

#include <gtest/gtest.h>

namespace nsim {
namespace {

struct Item {
  Picos ready;
  int id;
};

TEST(RoundRobinQueues, ReadyHeadsInTurn) {
  RoundRobinQueues<Item, 160> q;
  q.Reset(80);
  Item got{};
  Picos earliest = 0;
  EXPECT_FALSE(q.PopReady(1000, &got, &earliest));
  EXPECT_EQ(earliest, -1);  // every queue empty
  q.Push(5, {10, 1});
  q.Push(5, {10, 2});
  q.Push(70, {10, 3});
  q.Push(2, {40, 4});  // not ready before 40
  EXPECT_FALSE(q.PopReady(9, &got, &earliest));
  EXPECT_EQ(earliest, 10);
  ASSERT_TRUE(q.PopReady(10, &got, &earliest));
  EXPECT_EQ(got.id, 1);  // queue 5, then the turn passes it
  ASSERT_TRUE(q.PopReady(10, &got, &earliest));
  EXPECT_EQ(got.id, 3);  // queue 70 (across the 64-bit word)
  ASSERT_TRUE(q.PopReady(10, &got, &earliest));
  EXPECT_EQ(got.id, 2);  // wrapped to queue 5 again; queue 2's head is not ready
  EXPECT_FALSE(q.PopReady(39, &got, &earliest));
  EXPECT_EQ(earliest, 40);  // found past the turn, after wrapping
  ASSERT_TRUE(q.PopReady(40, &got, &earliest));
  EXPECT_EQ(got.id, 4);
  EXPECT_FALSE(q.PopReady(40, &got, &earliest));
  EXPECT_EQ(earliest, -1);
}

// Queues at and after the turn come first: with every head ready, the
// picks go round once from the position after the last pick.
TEST(RoundRobinQueues, OneRound) {
  RoundRobinQueues<Item, 160> q;
  q.Reset(10);
  for (int i = 0; i < 10; ++i) q.Push(i, {0, i});
  Item got{};
  Picos earliest = 0;
  ASSERT_TRUE(q.PopReady(0, &got, &earliest));
  EXPECT_EQ(got.id, 0);
  q.Push(0, {0, 100});
  for (int want = 1; want < 10; ++want) {
    ASSERT_TRUE(q.PopReady(0, &got, &earliest));
    EXPECT_EQ(got.id, want);
  }
  ASSERT_TRUE(q.PopReady(0, &got, &earliest));
  EXPECT_EQ(got.id, 100);
  EXPECT_FALSE(q.PopReady(0, &got, &earliest));
}

// Take picks a given queue's head as PopReady would have picked it: the turn
// passes that queue; PutBack undoes it.
TEST(RoundRobinQueues, TakeAndPutBack) {
  RoundRobinQueues<Item, 160> q;
  q.Reset(10);
  q.Push(6, {5, 1});
  q.Push(6, {5, 2});
  Item got{};
  const int turn = q.turn();
  q.Take(6, &got);
  EXPECT_EQ(got.id, 1);
  EXPECT_EQ(q.turn(), 7);
  q.PutBack(6, got, turn);
  EXPECT_EQ(q.turn(), turn);
  Picos earliest = 0;
  ASSERT_TRUE(q.PopReady(5, &got, &earliest));
  EXPECT_EQ(got.id, 1);  // back at the front of its queue
  ASSERT_TRUE(q.PopReady(5, &got, &earliest));
  EXPECT_EQ(got.id, 2);
}

}  // namespace
}  // namespace nsim
