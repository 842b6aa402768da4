// LazyFifo keeps FIFO order through its compactions and clears.
#include "sim/model/lazy_fifo.h"

#include <gtest/gtest.h>

#include <deque>

namespace nsim {
namespace {

// Interleaved pushes and pops (the queue never empties, so the consumed
// front is compacted away many times), against std::deque.
TEST(LazyFifo, SameOrderAsADeque) {
  LazyFifo<int> fifo;
  std::deque<int> want;
  EXPECT_TRUE(fifo.empty());
  int next = 0;
  for (int round = 0; round < 2000; ++round) {
    for (int i = 0; i < 3; ++i) {
      fifo.push_back(next);
      want.push_back(next++);
    }
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(fifo.front(), want.front());
      fifo.pop_front();
      want.pop_front();
    }
  }
  while (!want.empty()) {
    ASSERT_FALSE(fifo.empty());
    ASSERT_EQ(fifo.front(), want.front());
    fifo.pop_front();
    want.pop_front();
  }
  EXPECT_TRUE(fifo.empty());
}

TEST(LazyFifo, ClearEmptiesAndStaysUsable) {
  LazyFifo<int> fifo;
  fifo.push_back(1);
  fifo.push_back(2);
  fifo.pop_front();
  fifo.clear();
  EXPECT_TRUE(fifo.empty());
  fifo.push_back(3);
  EXPECT_EQ(fifo.front(), 3);
}

}  // namespace
}  // namespace nsim
