#include "sim/base/dtype.h"

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

namespace nsim {
namespace {

float FromBits(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }

TEST(BF16, RoundsToNearestEven) {
  // 1 + 2^-8 is exactly halfway between bf16 1.0 and 1.0078125: ties to even -> 1.0.
  EXPECT_EQ(FloatToBF16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  // 1.0078125 + 2^-8 is halfway between 1.0078125 (odd mantissa) and 1.015625: -> even 1.015625.
  EXPECT_EQ(FloatToBF16(1.0078125f + std::ldexp(1.0f, -8)), 0x3f82);
  // Just above the halfway point rounds up.
  EXPECT_EQ(FloatToBF16(FromBits(0x3f808001u)), 0x3f81);
  EXPECT_EQ(BF16ToFloat(0x3f80), 1.0f);
  EXPECT_TRUE(std::isnan(BF16ToFloat(FloatToBF16(NAN))));
  EXPECT_EQ(FloatToBF16(INFINITY), 0x7f80);
}

TEST(F16, RoundsToNearestEvenAndHandlesRange) {
  EXPECT_EQ(FloatToF16(1.0f), 0x3c00);
  EXPECT_EQ(FloatToF16(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToF16(65520.0f), 0x7c00);  // halfway to the next binade rounds to inf
  EXPECT_EQ(FloatToF16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie -> even
  EXPECT_EQ(FloatToF16(std::ldexp(1.0f, -24)), 0x0001);          // smallest subnormal
  EXPECT_EQ(F16ToFloat(0x0001), std::ldexp(1.0f, -24));
  for (uint32_t h = 0; h < 0x7c00; ++h) {  // every finite positive half round-trips
    ASSERT_EQ(FloatToF16(F16ToFloat(static_cast<uint16_t>(h))), h) << h;
  }
}

TEST(DType, ParsesNames) {
  DType t;
  ASSERT_TRUE(ParseDType("bfloat16", &t));
  EXPECT_EQ(t, DType::kBF16);
  EXPECT_FALSE(ParseDType("float64", &t));
  EXPECT_EQ(DTypeSize(DType::kBF16), 2);
}

}  // namespace
}  // namespace nsim
