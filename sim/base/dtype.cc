#include "sim/base/dtype.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace nsim {

int DTypeSize(DType t) {
  switch (t) {
#define NSIM_DTYPE_SIZE(e, name, bytes, nki_name) \
  case DType::e: return bytes;
    NSIM_DTYPE_TABLE(NSIM_DTYPE_SIZE)
#undef NSIM_DTYPE_SIZE
  }
  return 0;
}

const char* DTypeName(DType t) {
  switch (t) {
#define NSIM_DTYPE_NAME(e, name, bytes, nki_name) \
  case DType::e: return name;
    NSIM_DTYPE_TABLE(NSIM_DTYPE_NAME)
#undef NSIM_DTYPE_NAME
  }
  return "?";
}

bool ParseDType(const std::string& s, DType* out) {
#define NSIM_DTYPE_PARSE(e, name, bytes, nki_name) \
  if (s == name || s == nki_name) {               \
    *out = DType::e;                              \
    return true;                                  \
  }
  NSIM_DTYPE_TABLE(NSIM_DTYPE_PARSE)
#undef NSIM_DTYPE_PARSE
  if (s == "fp32") { *out = DType::kF32; return true; }
  if (s == "fp16") { *out = DType::kF16; return true; }
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

namespace {

// An fp8 format: exponent and mantissa bits, and whether it has infinities
// (IEEE-like e4m3, e5m2) or only one NaN per sign and no infinity (e4m3fn).
struct F8Format {
  int exp_bits, mant_bits;
  bool fn;
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  uint8_t max_code() const {  // the largest finite positive code
    return fn ? 0x7e : static_cast<uint8_t>((((1 << exp_bits) - 2) << mant_bits) | ((1 << mant_bits) - 1));
  }
  uint8_t nan_code() const { return fn ? 0x7f : static_cast<uint8_t>(max_code() + 2); }
};

F8Format FormatOf(DType t) {
  switch (t) {
    case DType::kF8E5M2: return {5, 2, false};
    case DType::kF8E4M3FN: return {4, 3, true};
    default: return {4, 3, false};
  }
}

// The value of a positive code of `f` up to max_code() + 1; max_code() + 1
// (the infinity, or e4m3fn's NaN) counts as the next step after the maximum.
double PositiveValue(const F8Format& f, int code) {
  const int e = code >> f.mant_bits, m = code & ((1 << f.mant_bits) - 1);
  if (e == 0) return std::ldexp(static_cast<double>(m), 1 - f.bias() - f.mant_bits);
  return std::ldexp(static_cast<double>((1 << f.mant_bits) + m), e - f.bias() - f.mant_bits);
}

}  // namespace

uint8_t FloatToF8(DType t, float x) {
  const F8Format f = FormatOf(t);
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  if (std::isnan(x)) return static_cast<uint8_t>(sign | f.nan_code());
  const double a = std::fabs(static_cast<double>(x));
  int lo = 0, hi = f.max_code();  // binary search: the largest code whose value is <= a
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (PositiveValue(f, mid) <= a) lo = mid; else hi = mid - 1;
  }
  if (lo == f.max_code() && a > PositiveValue(f, lo + 1)) return static_cast<uint8_t>(sign | (lo + 1));  // overflow
  const double below = a - PositiveValue(f, lo), above = PositiveValue(f, lo + 1) - a;
  int code = lo;
  if (below > above || (below == above && (lo & 1))) code = lo + 1;  // nearest, ties to the even code
  return static_cast<uint8_t>(sign | code);
}

float F8ToFloat(DType t, uint8_t c) {
  const F8Format f = FormatOf(t);
  const int code = c & 0x7f;
  const float sign = (c & 0x80) ? -1.0f : 1.0f;
  if (f.fn && code == 0x7f) return std::nanf("");
  if (!f.fn && (code >> f.mant_bits) == (1 << f.exp_bits) - 1) {
    return (code & ((1 << f.mant_bits) - 1)) ? std::nanf("") : sign * INFINITY;
  }
  return sign * static_cast<float>(PositiveValue(f, code));
}

namespace {

// An integer type's value of v: rounded to nearest even, saturated; NaN is 0.
double SaturatedInteger(float v, double lo, double hi) {
  if (std::isnan(v)) return 0;
  return std::min(hi, std::max(lo, std::nearbyint(static_cast<double>(v))));
}

template <class I>
void StoreInteger(uint8_t* p, float v) {
  const I i = static_cast<I>(SaturatedInteger(v, static_cast<double>(std::numeric_limits<I>::min()),
                                              static_cast<double>(std::numeric_limits<I>::max())));
  std::memcpy(p, &i, sizeof(I));
}

template <class I>
float LoadInteger(const uint8_t* p) {
  I i;
  std::memcpy(&i, p, sizeof(I));
  return static_cast<float>(i);
}

}  // namespace

float RoundTo(DType t, float f) {
  uint8_t bytes[4];
  StoreElement(t, bytes, f);
  return LoadElement(t, bytes);
}

float LoadElement(DType t, const uint8_t* p) {
  switch (t) {
    case DType::kF32: { float v; std::memcpy(&v, p, 4); return v; }
    case DType::kBF16: { uint16_t h; std::memcpy(&h, p, 2); return BF16ToFloat(h); }
    case DType::kF16: { uint16_t h; std::memcpy(&h, p, 2); return F16ToFloat(h); }
    case DType::kI32: return LoadInteger<int32_t>(p);
    case DType::kI8: return LoadInteger<int8_t>(p);
    case DType::kU8: return LoadInteger<uint8_t>(p);
    case DType::kI16: return LoadInteger<int16_t>(p);
    case DType::kU16: return LoadInteger<uint16_t>(p);
    case DType::kU32: return LoadInteger<uint32_t>(p);
    case DType::kBool: return *p != 0 ? 1.0f : 0.0f;
    case DType::kF8E4M3: case DType::kF8E5M2: case DType::kF8E4M3FN: return F8ToFloat(t, *p);
  }
  return 0;
}

void StoreElement(DType t, uint8_t* p, float v) {
  switch (t) {
    case DType::kF32: std::memcpy(p, &v, 4); return;
    case DType::kBF16: { const uint16_t h = FloatToBF16(v); std::memcpy(p, &h, 2); return; }
    case DType::kF16: { const uint16_t h = FloatToF16(v); std::memcpy(p, &h, 2); return; }
    case DType::kI32: return StoreInteger<int32_t>(p, v);
    case DType::kI8: return StoreInteger<int8_t>(p, v);
    case DType::kU8: return StoreInteger<uint8_t>(p, v);
    case DType::kI16: return StoreInteger<int16_t>(p, v);
    case DType::kU16: return StoreInteger<uint16_t>(p, v);
    case DType::kU32: return StoreInteger<uint32_t>(p, v);
    case DType::kBool: *p = v != 0.0f ? 1 : 0; return;
    case DType::kF8E4M3: case DType::kF8E5M2: case DType::kF8E4M3FN: *p = FloatToF8(t, v); return;
  }
}

}  // namespace nsim
