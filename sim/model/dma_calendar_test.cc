// DmaCalendar hands out engines in time order, lowest engine first among
// equal times, and follows entries that are moved, lowered and re-added,
// against a plain scan of every engine's entry.
#include "sim/model/dma_calendar.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace nsim {
namespace {

TEST(DmaCalendar, EarliestFirstThenLowestEngine) {
  DmaCalendar<32> c;
  c.Reset(16);
  EXPECT_EQ(c.Next(), -1);
  EXPECT_EQ(c.PopDue(1000), -1);
  c.Set(7, 50);
  c.Set(3, 50);
  c.Set(12, 20);
  c.Set(0, 90);
  EXPECT_EQ(c.Next(), 20);
  EXPECT_EQ(c.PopDue(19), -1);  // nothing due yet
  EXPECT_EQ(c.PopDue(50), 12);
  EXPECT_EQ(c.PopDue(50), 3);
  EXPECT_EQ(c.PopDue(50), 7);
  EXPECT_EQ(c.PopDue(50), -1);
  EXPECT_EQ(c.Next(), 90);
  EXPECT_EQ(c.due(0), 90);
  EXPECT_EQ(c.due(3), -1);
}

TEST(DmaCalendar, MovedAndLoweredEntries) {
  DmaCalendar<32> c;
  c.Reset(8);
  c.Set(2, 100);
  c.Set(2, 300);  // alone at the earliest time, moved later
  c.Set(5, 200);
  EXPECT_EQ(c.Next(), 200);
  c.Lower(5, 250);  // later: no change
  EXPECT_EQ(c.due(5), 200);
  c.Lower(2, 150);
  EXPECT_EQ(c.Next(), 150);
  c.Lower(6, 150);
  EXPECT_EQ(c.PopDue(150), 2);
  EXPECT_EQ(c.PopDue(150), 6);
  EXPECT_EQ(c.PopDue(150), -1);
  EXPECT_EQ(c.PopDue(200), 5);
  EXPECT_EQ(c.Next(), -1);
}

// Random operations against the definition: the engine with the least
// (entry, index) that is due.
TEST(DmaCalendar, SameAsAScan) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 32);
    DmaCalendar<32> c;
    c.Reset(n);
    std::vector<Picos> want(n, -1);
    Picos now = 0;
    for (int step = 0; step < 300; ++step) {
      const int e = static_cast<int>(rng() % n);
      const Picos at = now + static_cast<Picos>(rng() % 4);  // many equal times
      switch (rng() % 3) {
        case 0:
          c.Set(e, at);
          want[e] = at;
          break;
        case 1:
          c.Lower(e, at);
          if (want[e] < 0 || at < want[e]) want[e] = at;
          break;
        default: {
          int best = -1;
          for (int i = 0; i < n; ++i) {
            if (want[i] >= 0 && want[i] <= now && (best < 0 || want[i] < want[best])) best = i;
          }
          ASSERT_EQ(c.PopDue(now), best) << "trial " << trial << " step " << step;
          if (best >= 0) want[best] = -1;
          now += static_cast<Picos>(rng() % 2);
        }
      }
      Picos next = -1;
      for (Picos w : want) {
        if (w >= 0 && (next < 0 || w < next)) next = w;
      }
      ASSERT_EQ(c.Next(), next) << "trial " << trial << " step " << step;
      for (int i = 0; i < n; ++i) ASSERT_EQ(c.due(i), want[i]);
    }
  }
}

}  // namespace
}  // namespace nsim
