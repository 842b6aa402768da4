#pragma once
// Element types of the device and their conversions. bf16 and fp16 round to
// nearest even, as the engines' output casting does.
#include <cstdint>
#include <string>

namespace nsim {

enum class DType : uint8_t { kF32, kBF16, kF16, kI32 };

int DTypeSize(DType t);
const char* DTypeName(DType t);                 // "f32", "bf16", "f16", "i32"
bool ParseDType(const std::string& s, DType* out);  // accepts the names above and fp32/float32/bfloat16/fp16/float16/int32
bool IsFloat16Bit(DType t);                     // bf16 or f16

uint16_t FloatToBF16(float f);   // round to nearest even; NaN stays NaN
float BF16ToFloat(uint16_t h);
uint16_t FloatToF16(float f);    // IEEE half, round to nearest even, overflow to inf
float F16ToFloat(uint16_t h);

// Rounds a float through the given type and back (the value a store would keep).
float RoundTo(DType t, float f);

// Loads/stores one element at `p` (unaligned-safe).
float LoadElement(DType t, const uint8_t* p);
void StoreElement(DType t, uint8_t* p, float v);

}  // namespace nsim
