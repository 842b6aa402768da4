#include "profiler/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace nsim {
namespace prof {
namespace {

std::string Ticks(int64_t ticks) {
  std::string out;
  AppendTicks(out, ticks);
  return out;
}

TEST(JsonWriterTest, TicksAreExactBinaryFractions) {
  EXPECT_EQ(Ticks(0), "0");
  EXPECT_EQ(Ticks(65536), "1");
  EXPECT_EQ(Ticks(32768), "0.5");
  EXPECT_EQ(Ticks(1), "0.0000152587890625");  // 2^-16, all 16 decimals
  EXPECT_EQ(Ticks(65536 * 3 + 16384), "3.25");
}

// Perfetto reads ts and dur as llround(us * 1000) ns: it must get back the
// ns of both ends, for any start and length.
TEST(JsonWriterTest, PerfettoRecoversIntegerNanoseconds) {
  for (int64_t start : {int64_t{0}, int64_t{1}, int64_t{999}, int64_t{123456789}, int64_t{86400} * 1000000000}) {
    for (int64_t len : {0, 1, 2, 3, 7, 1000, 999999}) {
      std::string ts, dur;
      AppendMicros(ts, start);
      AppendDuration(dur, start, start + len);
      const double ts_us = std::stod(ts), dur_us = std::stod(dur);
      EXPECT_EQ(std::llround(ts_us * 1000.0), start) << ts;
      EXPECT_EQ(std::llround(dur_us * 1000.0), len) << dur;
      std::string end;
      AppendMicros(end, start + len);
      EXPECT_EQ(ts_us + dur_us, std::stod(end)) << "ts + dur adds up exactly";
    }
  }
}

TEST(JsonWriterTest, PlainNumbersOnly) {
  for (const char* n : {"0", "12", "-3", "0.25", "1520.000"}) EXPECT_TRUE(IsPlainNumber(n)) << n;
  for (const char* s : {"", "-", ".", "1.", "1e3", "ct, ps", "0x10", "nan", "1.2.3"}) EXPECT_FALSE(IsPlainNumber(s)) << s;
  JsonArgs args;
  args.Value("index", "3").Value("operands", "ct, ps");
  EXPECT_EQ(args.Done(), "{\"index\": 3, \"operands\": \"ct, ps\"}");
}

}  // namespace
}  // namespace prof
}  // namespace nsim
