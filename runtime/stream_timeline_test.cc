#include "runtime/stream_timeline.h"

#include <gtest/gtest.h>

namespace nsim {
namespace rt {
namespace {

TEST(StreamTimelineTest, StreamsAreInOrderQueues) {
  StreamTimeline t;
  EXPECT_EQ(t.size(), 1);
  EXPECT_TRUE(t.Has(0));
  EXPECT_FALSE(t.Has(1));
  // Submitted at 10, nothing before it: starts at 10.
  EXPECT_EQ(t.Place(0, 10, 100, false), 10);
  // Submitted at 20 but the stream is busy until 110.
  EXPECT_EQ(t.Place(0, 20, 5, false), 110);
  // Submitted after the stream drained: starts at submission.
  EXPECT_EQ(t.Place(0, 500, 5, false), 500);
  EXPECT_EQ(t.end(0), 505);
}

TEST(StreamTimelineTest, ExecutionsShareTheEnginesCopiesDoNot) {
  StreamTimeline t;
  const int s1 = t.Create();
  EXPECT_EQ(s1, 1);
  EXPECT_EQ(t.Place(0, 0, 100, true), 0);     // a kernel on stream 0
  EXPECT_EQ(t.Place(s1, 10, 50, false), 10);  // a copy on stream 1 overlaps it
  EXPECT_EQ(t.Place(s1, 20, 30, true), 100);  // a kernel on stream 1 waits for the engines
  EXPECT_EQ(t.end(), 130);
}

}  // namespace
}  // namespace rt
}  // namespace nsim
