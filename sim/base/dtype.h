#pragma once
// Element types of the device and their conversions. bf16 and fp16 round to
// nearest even, as the engines' output casting does.
#include <cstdint>
#include <cstring>
#include <string>

namespace nsim {

// The one table of element types: X(Enumerator, kernel-text name, bytes,
// NKI / NumPy name). Integers store rounded to nearest even and saturated
// to their range (NaN stores 0); bool stores 1 for any non-zero value; the
// fp8 types round to nearest even as ml_dtypes does (e4m3 and e5m2 have
// infinities and overflow to them, e4m3fn has none and overflows to NaN).
#define NSIM_DTYPE_TABLE(X)                  \
  X(kF32, "f32", 4, "float32")               \
  X(kBF16, "bf16", 2, "bfloat16")            \
  X(kF16, "f16", 2, "float16")               \
  X(kI32, "i32", 4, "int32")                 \
  X(kI8, "i8", 1, "int8")                    \
  X(kU8, "u8", 1, "uint8")                   \
  X(kI16, "i16", 2, "int16")                 \
  X(kU16, "u16", 2, "uint16")                \
  X(kU32, "u32", 4, "uint32")                \
  X(kBool, "bool", 1, "bool")                \
  X(kF8E4M3, "f8e4m3", 1, "float8_e4m3")     \
  X(kF8E5M2, "f8e5m2", 1, "float8_e5m2")     \
  X(kF8E4M3FN, "f8e4m3fn", 1, "float8_e4m3fn")

#define NSIM_DTYPE_ENUMERATOR(e, name, bytes, nki_name) e,
enum class DType : uint8_t { NSIM_DTYPE_TABLE(NSIM_DTYPE_ENUMERATOR) };
#undef NSIM_DTYPE_ENUMERATOR
#define NSIM_DTYPE_COUNT(e, name, bytes, nki_name) +1
constexpr int kNumDTypes = 0 NSIM_DTYPE_TABLE(NSIM_DTYPE_COUNT);
#undef NSIM_DTYPE_COUNT

int DTypeSize(DType t);
const char* DTypeName(DType t);                 // "f32", "bf16", ..., the table's text names
// Accepts the table's text and NKI names, and fp32, fp16.
bool ParseDType(const std::string& s, DType* out);
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
// fp8 (t one of the kF8 types): round to nearest even, as ml_dtypes.
uint8_t FloatToF8(DType t, float f);
float F8ToFloat(DType t, uint8_t code);

// Rounds a float through the given type and back (the value a store would keep).
float RoundTo(DType t, float f);

// Loads/stores one element at `p` (unaligned-safe).
float LoadElement(DType t, const uint8_t* p);
void StoreElement(DType t, uint8_t* p, float v);

}  // namespace nsim
