#pragma once
// The bf16 conversion loops, written once and compiled in dtype_runs.cc
// (portable) and dtype_runs_avx2.cc (-mavx2). Internal linkage: each file
// keeps its own build of them. Branch-free, so both builds vectorise.
#include <cstdint>
#include <cstring>

namespace nsim {
namespace {

// One element each way (FloatToBF16, sim/base/dtype.h, for the store: round
// to nearest even; a NaN keeps its top half with the quiet bit set).
inline float Bf16ToFloat(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline void FloatToBf16(float f, uint8_t* p) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (bits >> 16) | 0x40u;
  const uint16_t h = static_cast<uint16_t>((bits & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  std::memcpy(p, &h, 2);
}

inline void Bf16LoadLoop(const uint8_t* p, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = Bf16ToFloat(p + 2 * i);
}

inline void Bf16StoreLoop(const float* in, int64_t n, uint8_t* p) {
  for (int64_t i = 0; i < n; ++i) FloatToBf16(in[i], p + 2 * i);
}

}  // namespace
}  // namespace nsim
