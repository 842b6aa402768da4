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

// The one bf16 conversion of the simulator, per element: the run loops of
// sim/memory/dtype_run_loops.h vectorise these same functions. Branch-free,
// so that those loops vectorise. always_inline: a translation unit built for
// the host's vector units (-mavx2) inlines them too, so no out-of-line copy
// built for AVX2 can stand in for the portable one at link time.
[[gnu::always_inline]] inline uint16_t FloatToBF16(float f) {  // round to nearest even; NaN stays NaN
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;  // ties to even
  const uint32_t quiet_nan = (bits >> 16) | 0x40u;  // a NaN keeps its top half, quiet bit set
  return static_cast<uint16_t>((bits & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
}
[[gnu::always_inline]] inline float BF16ToFloat(uint16_t h) {
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
