#include "sim/base/dtype.h"

#include <cmath>
#include <cstring>

namespace nsim {

int DTypeSize(DType t) {
  switch (t) {
    case DType::kF32: return 4;
    case DType::kBF16: return 2;
    case DType::kF16: return 2;
    case DType::kI32: return 4;
  }
  return 0;
}

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kF32: return "f32";
    case DType::kBF16: return "bf16";
    case DType::kF16: return "f16";
    case DType::kI32: return "i32";
  }
  return "?";
}

bool ParseDType(const std::string& s, DType* out) {
  struct Name { const char* name; DType type; };
  static const Name kNames[] = {
      {"f32", DType::kF32},   {"fp32", DType::kF32},      {"float32", DType::kF32},
      {"bf16", DType::kBF16}, {"bfloat16", DType::kBF16}, {"f16", DType::kF16},
      {"fp16", DType::kF16},  {"float16", DType::kF16},   {"i32", DType::kI32},
      {"int32", DType::kI32},
  };
  for (const Name& n : kNames) {
    if (s == n.name) { *out = n.type; return true; }
  }
  return false;
}

bool IsFloat16Bit(DType t) { return t == DType::kBF16 || t == DType::kF16; }

uint16_t FloatToF16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {  // subnormal half (or zero): value = m * 2^-24
    float a;
    std::memcpy(&a, &abs, 4);
    const float scaled = a * 16777216.0f;  // exact: a * 2^24
    const uint32_t m = static_cast<uint32_t>(std::nearbyint(scaled));  // ties to even (default mode)
    return static_cast<uint16_t>(sign | m);
  }
  const uint32_t exp = ((abs >> 23) - 112u) << 10;  // rebias 127 -> 15
  const uint32_t mant = abs & 0x7fffffu;
  uint32_t h = exp | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // carries into exp correctly
  return static_cast<uint16_t>(sign | h);
}

float F16ToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    const float v = static_cast<float>(mant) / 16777216.0f;  // m * 2^-24
    return sign ? -v : v;
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112u) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float RoundTo(DType t, float f) {
  switch (t) {
    case DType::kF32: return f;
    case DType::kBF16: return BF16ToFloat(FloatToBF16(f));
    case DType::kF16: return F16ToFloat(FloatToF16(f));
    case DType::kI32: return static_cast<float>(static_cast<int32_t>(std::nearbyint(f)));
  }
  return f;
}

float LoadElement(DType t, const uint8_t* p) {
  switch (t) {
    case DType::kF32: { float v; std::memcpy(&v, p, 4); return v; }
    case DType::kBF16: { uint16_t h; std::memcpy(&h, p, 2); return BF16ToFloat(h); }
    case DType::kF16: { uint16_t h; std::memcpy(&h, p, 2); return F16ToFloat(h); }
    case DType::kI32: { int32_t v; std::memcpy(&v, p, 4); return static_cast<float>(v); }
  }
  return 0;
}

void StoreElement(DType t, uint8_t* p, float v) {
  switch (t) {
    case DType::kF32: std::memcpy(p, &v, 4); return;
    case DType::kBF16: { const uint16_t h = FloatToBF16(v); std::memcpy(p, &h, 2); return; }
    case DType::kF16: { const uint16_t h = FloatToF16(v); std::memcpy(p, &h, 2); return; }
    case DType::kI32: { const int32_t i = static_cast<int32_t>(std::nearbyint(v)); std::memcpy(p, &i, 4); return; }
  }
}

}  // namespace nsim
