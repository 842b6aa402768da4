#pragma once
// Element types of the device and their conversions. bf16 and fp16 round to
// nearest even, as the engines' output casting does.
#include <cstdint>
#include <cstring>
#include <string>

namespace nsim {

enum class DType : uint8_t { kF32, kBF16, kF16, kI32 };

int DTypeSize(DType t);
const char* DTypeName(DType t);                 // "f32", "bf16", "f16", "i32"
bool ParseDType(const std::string& s, DType* out);  // accepts the names above and fp32/float32/bfloat16/fp16/float16/int32
bool IsFloat16Bit(DType t);                     // bf16 or f16

// Inline: they sit on the simulator's per-element path.
inline uint16_t FloatToBF16(float f) {  // round to nearest even; NaN stays NaN
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);  // quiet NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);  // ties to even
  return static_cast<uint16_t>(bits >> 16);
}
inline float BF16ToFloat(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint16_t FloatToF16(float f);    // IEEE half, round to nearest even, overflow to inf
float F16ToFloat(uint16_t h);

// Rounds a float through the given type and back (the value a store would keep).
float RoundTo(DType t, float f);

// Loads/stores one element at `p` (unaligned-safe).
float LoadElement(DType t, const uint8_t* p);
void StoreElement(DType t, uint8_t* p, float v);

}  // namespace nsim
