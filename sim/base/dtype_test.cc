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

// Every fp8 code decodes to a value that encodes back to the same code
// (NaNs to a NaN), and halfway values round to the even code, as
// ml_dtypes does (values checked against ml_dtypes 0.6 by hand).
TEST(F8, RoundTripsEveryCodeAndRoundsToNearestEven) {
  for (DType t : {DType::kF8E4M3, DType::kF8E5M2, DType::kF8E4M3FN}) {
    SCOPED_TRACE(DTypeName(t));
    for (int c = 0; c < 256; ++c) {
      const float v = F8ToFloat(t, static_cast<uint8_t>(c));
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(F8ToFloat(t, FloatToF8(t, v))));
      } else if (v != 0.0f) {
        EXPECT_EQ(FloatToF8(t, v), c);
      }
    }
  }
  EXPECT_EQ(F8ToFloat(DType::kF8E4M3FN, FloatToF8(DType::kF8E4M3FN, 464.0f)), 448.0f);  // tie: even code 0x7e
  EXPECT_TRUE(std::isnan(F8ToFloat(DType::kF8E4M3FN, FloatToF8(DType::kF8E4M3FN, 1000.0f))));  // no inf: NaN
  EXPECT_EQ(F8ToFloat(DType::kF8E4M3, FloatToF8(DType::kF8E4M3, 248.0f)), INFINITY);  // tie 240 / inf: inf
  EXPECT_EQ(F8ToFloat(DType::kF8E5M2, FloatToF8(DType::kF8E5M2, 57344.0f)), 57344.0f);  // e5m2's largest
  EXPECT_EQ(F8ToFloat(DType::kF8E5M2, FloatToF8(DType::kF8E5M2, 61440.0f)), INFINITY);
  EXPECT_EQ(F8ToFloat(DType::kF8E4M3, FloatToF8(DType::kF8E4M3, 0.3f)), 0.3125f);
  EXPECT_EQ(FloatToF8(DType::kF8E4M3FN, 0.3f), 42);
}

TEST(Integers, RoundToNearestEvenAndSaturate) {
  EXPECT_EQ(RoundTo(DType::kU8, 300.0f), 255.0f);
  EXPECT_EQ(RoundTo(DType::kU8, -3.0f), 0.0f);
  EXPECT_EQ(RoundTo(DType::kI8, 2.5f), 2.0f);
  EXPECT_EQ(RoundTo(DType::kI8, -200.0f), -128.0f);
  EXPECT_EQ(RoundTo(DType::kI16, 40000.0f), 32767.0f);
  EXPECT_EQ(RoundTo(DType::kU16, 65535.0f), 65535.0f);
  EXPECT_EQ(RoundTo(DType::kU32, 4e9f), 4e9f);
  EXPECT_EQ(RoundTo(DType::kU32, -1.0f), 0.0f);
  EXPECT_EQ(RoundTo(DType::kI32, std::nanf("")), 0.0f);
  EXPECT_EQ(RoundTo(DType::kBool, -0.5f), 1.0f);
  EXPECT_EQ(RoundTo(DType::kBool, 0.0f), 0.0f);
}

TEST(DType, EveryTableNameParsesToItsType) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType t = static_cast<DType>(i);
    DType parsed;
    ASSERT_TRUE(ParseDType(DTypeName(t), &parsed));
    EXPECT_EQ(parsed, t);
  }
  DType t;
  ASSERT_TRUE(ParseDType("float8_e4m3fn", &t));
  EXPECT_EQ(t, DType::kF8E4M3FN);
  ASSERT_TRUE(ParseDType("uint16", &t));
  EXPECT_EQ(t, DType::kU16);
}

}  // namespace
}  // namespace nsim
