#include "profiler/time_format.h"

#include <gtest/gtest.h>

namespace nsim {
namespace prof {
namespace {

TEST(TimeFormatTest, SwitchesUnitsAtPyTorchThresholds) {
  EXPECT_EQ(FormatTime(0), "0.000us");
  EXPECT_EQ(FormatTime(999.999), "999.999us");
  EXPECT_EQ(FormatTime(1000.0), "1.000ms");  // >= 1000us
  EXPECT_EQ(FormatTime(2100.0), "2.100ms");
  EXPECT_EQ(FormatTime(999999.0), "999.999ms");
  EXPECT_EQ(FormatTime(1e6), "1.000s");
  EXPECT_EQ(FormatTime(1234000.0), "1.234s");
}

TEST(TimeFormatTest, ForcedUnits) {
  EXPECT_EQ(FormatTimeIn(2100.0, "us"), "2100.000us");
  EXPECT_EQ(FormatTimeIn(2100.0, "ms"), "2.100ms");
  EXPECT_EQ(FormatTimeIn(2100.0, "s"), "0.002s");
  EXPECT_EQ(FormatTimeIn(2100.0, ""), "2.100ms");
}

TEST(TimeFormatTest, Shares) {
  EXPECT_EQ(FormatTimeShare(120.0, 2100.0), "5.71%");
  EXPECT_EQ(FormatTimeShare(2100.0, 2100.0), "100.00%");
  EXPECT_EQ(FormatTimeShare(0.0, 0.0), "NaN");
}

}  // namespace
}  // namespace prof
}  // namespace nsim
