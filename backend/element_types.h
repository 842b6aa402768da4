#pragma once
// C++ element types for the 16-bit floats, so kernels can be written once as
// templates over the element type. Conversions round to nearest even through
// sim/base/dtype.h, the same code the hardware model's output casting uses.
//
//   BFloat16 h = 1.00390625f;   // rounds to 1.0 (ties to even)
//   float f = h;                // widening is exact
#include <cstdint>

#include "backend/scalar_type.h"
#include "sim/base/dtype.h"

namespace nsim {
namespace at {

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(FloatToBF16(f)) {}  // NOLINT: implicit like c10::BFloat16
  operator float() const { return BF16ToFloat(bits); }
};

struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(FloatToF16(f)) {}  // NOLINT: implicit like c10::Half
  operator float() const { return F16ToFloat(bits); }
};

// Maps a ScalarType to its C++ element type and back.
template <ScalarType T> struct ElementTypeOf;
template <> struct ElementTypeOf<kFloat> { using type = float; };
template <> struct ElementTypeOf<kBFloat16> { using type = BFloat16; };
template <> struct ElementTypeOf<kHalf> { using type = Half; };
template <> struct ElementTypeOf<kByte> { using type = uint8_t; };
template <> struct ElementTypeOf<kChar> { using type = int8_t; };
template <> struct ElementTypeOf<kShort> { using type = int16_t; };
template <> struct ElementTypeOf<kInt> { using type = int32_t; };
template <> struct ElementTypeOf<kLong> { using type = int64_t; };
template <> struct ElementTypeOf<kBool> { using type = bool; };

template <class T> struct ScalarTypeOf;
template <> struct ScalarTypeOf<float> { static constexpr ScalarType value = kFloat; };
template <> struct ScalarTypeOf<BFloat16> { static constexpr ScalarType value = kBFloat16; };
template <> struct ScalarTypeOf<Half> { static constexpr ScalarType value = kHalf; };
template <> struct ScalarTypeOf<uint8_t> { static constexpr ScalarType value = kByte; };
template <> struct ScalarTypeOf<int8_t> { static constexpr ScalarType value = kChar; };
template <> struct ScalarTypeOf<int16_t> { static constexpr ScalarType value = kShort; };
template <> struct ScalarTypeOf<int32_t> { static constexpr ScalarType value = kInt; };
template <> struct ScalarTypeOf<int64_t> { static constexpr ScalarType value = kLong; };
template <> struct ScalarTypeOf<bool> { static constexpr ScalarType value = kBool; };

// The type arithmetic runs in (ATen's "opmath"): float for every float type,
// so a bf16 op computes in fp32 and rounds once when storing.
template <class T> struct OpMath { using type = T; };
template <> struct OpMath<BFloat16> { using type = float; };
template <> struct OpMath<Half> { using type = float; };

template <class T> struct TypeTag { using type = T; };

}  // namespace at
}  // namespace nsim
