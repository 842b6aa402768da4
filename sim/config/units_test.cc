#include "sim/config/units.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/base/error.h"

namespace nsim {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string ErrorOf(UnitKind kind, const std::string& text) {
  try {
    ParseQuantity(kind, text);
  } catch (const SimError& e) {
    return e.what();
  }
  return "no error";
}

TEST(UnitsTest, ParsesFrequencies) {
  EXPECT_EQ(ParseFrequency("2.8GHz"), 2.8e9);
  EXPECT_EQ(ParseFrequency("960MHz"), 960e6);
  EXPECT_EQ(ParseFrequency("1e9Hz"), 1e9);
  EXPECT_EQ(ParseFrequency("100kHz"), 1e5);
  EXPECT_EQ(ParseFrequency(" 2.4 GHz "), 2.4e9);
  // The decimal prefix is applied to the text, so these are exact.
  EXPECT_EQ(ParseFrequency("0.96GHz"), 960000000.0);
  EXPECT_EQ(ParseFrequency("1.12GHz"), 1120000000.0);
}

TEST(UnitsTest, ParsesTimesToRoundedPicos) {
  EXPECT_EQ(ParseTime("1300ns"), 1300000);
  EXPECT_EQ(ParseTime("1.3us"), 1300000);
  EXPECT_EQ(ParseTime("500ps"), 500);
  EXPECT_EQ(ParseTime("1ms"), 1000000000);
  EXPECT_EQ(ParseTime("1s"), 1000000000000);
  EXPECT_EQ(ParseTime("0.4ps"), 0);
  EXPECT_EQ(ParseTime("1.5ps"), 2);
  EXPECT_EQ(ParseTime("0.0015ns"), 2);
}

TEST(UnitsTest, ParsesSizesToWholeBytes) {
  EXPECT_EQ(ParseSize("224KiB"), 229376);
  EXPECT_EQ(ParseSize("24MiB"), 24 * 1024 * 1024);
  EXPECT_EQ(ParseSize("16GiB"), int64_t{16} << 30);
  EXPECT_EQ(ParseSize("2048B"), 2048);
  EXPECT_EQ(ParseSize("32KB"), 32000);
  EXPECT_EQ(ParseSize("32kB"), 32000);
  EXPECT_EQ(ParseSize("1.5KiB"), 1536);
  EXPECT_EQ(ParseSize("0.1KB"), 100);
  EXPECT_EQ(ParseSize("1TiB"), int64_t{1} << 40);
  EXPECT_THAT(ErrorOf(UnitKind::kSize, "1.5B"), HasSubstr("not a whole number of bytes"));
  EXPECT_THAT(ErrorOf(UnitKind::kSize, "0.3KiB"), HasSubstr("not a whole number of bytes"));
}

TEST(UnitsTest, ParsesBandwidthsToBytesPerNs) {
  EXPECT_EQ(ParseBandwidth("23B/ns"), 23);
  EXPECT_EQ(ParseBandwidth("587.5B/ns"), 587.5);
  EXPECT_EQ(ParseBandwidth("27.2GB/s"), 27.2);
  EXPECT_EQ(ParseBandwidth("1GB/s"), 1);
  EXPECT_EQ(ParseBandwidth("3TB/s"), 3000);
  EXPECT_EQ(ParseBandwidth("500MB/s"), 0.5);
  EXPECT_DOUBLE_EQ(ParseBandwidth("820GiB/s"), 820 * 1.073741824);
}

TEST(UnitsTest, ParsesCyclesRatiosAndCounts) {
  EXPECT_EQ(ParseCycles("64"), 64);
  EXPECT_EQ(ParseCycles("64cycles"), 64);
  EXPECT_EQ(ParseCycles("64 cycles"), 64);
  EXPECT_EQ(ParseCycles("1cycle"), 1);
  EXPECT_EQ(ParseCycles("1e3cycles"), 1000);
  EXPECT_EQ(ParseRatio("0.5"), 0.5);
  EXPECT_EQ(ParseRatio("4"), 4);
  EXPECT_EQ(ParseRatio("-2"), -2);  // the sign is for the limits to judge
  EXPECT_EQ(ParseCount("16"), 16);
  EXPECT_THAT(ErrorOf(UnitKind::kCycles, "64.5"), HasSubstr("not a whole number of cycles"));
  EXPECT_THAT(ErrorOf(UnitKind::kCount, "16.5"), HasSubstr("not a whole number"));
}

TEST(UnitsTest, RejectsMissingUnit) {
  for (UnitKind kind : {UnitKind::kFrequency, UnitKind::kTime, UnitKind::kSize,
                        UnitKind::kBandwidth}) {
    EXPECT_THAT(ErrorOf(kind, "1300"), HasSubstr("missing unit")) << UnitKindName(kind);
  }
  EXPECT_THAT(ErrorOf(UnitKind::kFrequency, "2.8"),
              AllOf(HasSubstr("'2.8' is not a valid frequency"), HasSubstr("missing unit"),
                    HasSubstr("Hz, kHz, MHz or GHz, e.g. 1.4GHz")));
}

TEST(UnitsTest, RejectsUnitOfAnotherKind) {
  EXPECT_THAT(ErrorOf(UnitKind::kFrequency, "1300ns"),
              AllOf(HasSubstr("not a valid frequency"), HasSubstr("wrong unit 'ns' (a time unit)")));
  EXPECT_THAT(ErrorOf(UnitKind::kTime, "2GHz"), HasSubstr("wrong unit 'GHz' (a frequency unit)"));
  EXPECT_THAT(ErrorOf(UnitKind::kSize, "17B/ns"), HasSubstr("(a bandwidth unit)"));
  EXPECT_THAT(ErrorOf(UnitKind::kBandwidth, "17B"), HasSubstr("(a size unit)"));
  EXPECT_THAT(ErrorOf(UnitKind::kCycles, "64ns"), HasSubstr("wrong unit 'ns'"));
  EXPECT_THAT(ErrorOf(UnitKind::kRatio, "0.5GHz"), HasSubstr("wrong unit 'GHz'"));
  EXPECT_THAT(ErrorOf(UnitKind::kRatio, "4x"), HasSubstr("unknown unit 'x'"));
  EXPECT_THAT(ErrorOf(UnitKind::kCount, "16B"), HasSubstr("wrong unit 'B'"));
}

TEST(UnitsTest, RejectsUnknownUnitsAndCase) {
  EXPECT_THAT(ErrorOf(UnitKind::kFrequency, "2.8Gz"), HasSubstr("unknown unit 'Gz'"));
  EXPECT_THAT(ErrorOf(UnitKind::kFrequency, "2.8ghz"), HasSubstr("unknown unit 'ghz'"));
  EXPECT_THAT(ErrorOf(UnitKind::kSize, "32kib"), HasSubstr("unknown unit 'kib'"));
}

TEST(UnitsTest, RejectsMalformedNumbers) {
  for (const char* text : {"", "GHz", "abc", ".GHz", "inf", "nanHz", "0x10Hz", "--1GHz"}) {
    EXPECT_THAT(ErrorOf(UnitKind::kFrequency, text), HasSubstr("not a valid frequency")) << text;
  }
  EXPECT_THAT(ErrorOf(UnitKind::kFrequency, "abc"), HasSubstr("expected a number"));
  EXPECT_THAT(ErrorOf(UnitKind::kFrequency, "1e999Hz"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf(UnitKind::kFrequency, "1e9999999999Hz"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf(UnitKind::kSize, "1e30B"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf(UnitKind::kTime, "1e30s"), HasSubstr("out of range"));
}

TEST(UnitsTest, FormatsInTheLargestNaturalUnit) {
  EXPECT_EQ(FormatFrequency(2.8e9), "2.8GHz");
  EXPECT_EQ(FormatFrequency(1.12e9), "1.12GHz");
  EXPECT_EQ(FormatFrequency(960e6), "960MHz");
  EXPECT_EQ(FormatFrequency(1.5), "1.5Hz");
  EXPECT_EQ(FormatFrequency(0), "0Hz");
  EXPECT_EQ(FormatTime(1300000), "1300ns");
  EXPECT_EQ(FormatTime(1000000), "1us");
  EXPECT_EQ(FormatTime(500), "500ps");
  EXPECT_EQ(FormatTime(1000000000000), "1s");
  EXPECT_EQ(FormatTime(0), "0ps");
  EXPECT_EQ(FormatTime(-2000), "-2ns");
  EXPECT_EQ(FormatSize(196608), "192KiB");
  EXPECT_EQ(FormatSize(int64_t{16} << 30), "16GiB");
  EXPECT_EQ(FormatSize(2048), "2KiB");
  EXPECT_EQ(FormatSize(32000), "32000B");
  EXPECT_EQ(FormatBandwidth(17), "17B/ns");
  EXPECT_EQ(FormatBandwidth(587.5), "587.5B/ns");
  EXPECT_EQ(FormatBandwidth(0.001), "0.001B/ns");
  EXPECT_EQ(FormatQuantity(UnitKind::kCycles, 64), "64cycles");
  EXPECT_EQ(FormatQuantity(UnitKind::kRatio, 0.5), "0.5");
  EXPECT_EQ(FormatQuantity(UnitKind::kCount, 16), "16");
  EXPECT_EQ(FormatQuantity(UnitKind::kRatio, 1e20), "100000000000000000000");
}

// Printing then parsing gives back the same bits, so a printed config is an
// exact record of the one that ran.
TEST(UnitsTest, FormatParseRoundTripIsExact) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(1, 10);
  std::uniform_int_distribution<int> exponent(-6, 12);
  for (int i = 0; i < 5000; ++i) {
    const double v = mantissa(rng) * std::pow(10.0, exponent(rng));
    for (UnitKind kind : {UnitKind::kFrequency, UnitKind::kBandwidth, UnitKind::kRatio}) {
      ASSERT_EQ(ParseQuantity(kind, FormatQuantity(kind, v)), v) << FormatQuantity(kind, v);
    }
    const double whole = std::floor(v * 1000);
    for (UnitKind kind : {UnitKind::kTime, UnitKind::kSize, UnitKind::kCycles, UnitKind::kCount}) {
      ASSERT_EQ(ParseQuantity(kind, FormatQuantity(kind, whole)), whole)
          << FormatQuantity(kind, whole);
    }
  }
}

TEST(UnitsTest, HintsListTheAcceptedUnits) {
  EXPECT_EQ(UnitHint(UnitKind::kFrequency), "Hz, kHz, MHz or GHz, e.g. 1.4GHz");
  EXPECT_EQ(UnitHint(UnitKind::kCycles), "cycles, cycle or no unit, e.g. 64cycles");
  EXPECT_EQ(UnitHint(UnitKind::kRatio), "a plain number, e.g. 0.5");
  EXPECT_EQ(UnitHint(UnitKind::kCount), "a plain integer, e.g. 16");
  EXPECT_THAT(UnitHint(UnitKind::kSize), HasSubstr("KiB"));
}

}  // namespace
}  // namespace nsim
