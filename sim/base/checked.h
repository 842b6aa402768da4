#pragma once
// Checked 64-bit arithmetic for every quantity derived from input: sizes,
// byte counts, addresses, access-pattern bounds and timestamps. A kernel or
// config can ask for numbers that do not fit 64 bits ([1, 2^62] f32 in SBUF,
// a 1 Hz clock); wrapping around would turn them into small, plausible
// values, so overflow is a SimError instead. `what` names the quantity
// ("bytes of tensor 'a'"); callers that know more (the file and line, the
// instruction) add it where they catch SimError, as the parser does.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/base/error.h"

namespace nsim {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

[[noreturn]] inline void ThrowOverflow(const std::string& what, const std::string& detail) {
  throw SimError(what + " overflows 64-bit arithmetic (" + detail + ", the limit is " +
                 std::to_string(kMaxInt64) + ")");
}

inline int64_t CheckedAdd(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) {
    ThrowOverflow(what, std::to_string(a) + " + " + std::to_string(b));
  }
  return r;
}

inline int64_t CheckedMul(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) {
    ThrowOverflow(what, std::to_string(a) + " x " + std::to_string(b));
  }
  return r;
}

// The product of v[from:], e.g. the element count of a shape.
inline int64_t CheckedProduct(const std::vector<int64_t>& v, size_t from, const char* what) {
  int64_t p = 1;
  for (size_t i = from; i < v.size(); ++i) p = CheckedMul(p, v[i], what);
  return p;
}

// A double (a time in ps, a cycle count) converted to int64, rounded to
// nearest; NaN, infinities and values beyond int64 are errors rather than the
// unspecified result of llround.
inline int64_t CheckedRound(double v, const char* what) {
  // 2^63 is exactly representable; anything >= it does not fit.
  if (!(std::fabs(v) < 9223372036854775808.0)) {
    ThrowOverflow(what, "value " + std::to_string(v));
  }
  return static_cast<int64_t>(std::llround(v));
}

}  // namespace nsim
