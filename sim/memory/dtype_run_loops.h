#pragma once
// The bf16 conversion loops, written once and compiled in dtype_runs.cc
// (portable) and dtype_runs_avx2.cc (-mavx2). Internal linkage: each file
// keeps its own build of them. Branch-free, so both builds vectorise.
#include <cstdint>
#include <cstring>

namespace nsim {
namespace {

inline void Bf16LoadLoop(const uint8_t* p, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, p + 2 * i, 2);
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    std::memcpy(&out[i], &bits, 4);
  }
}

// FloatToBF16 (sim/base/dtype.h) on a run: round to nearest even; a NaN keeps
// its top half with the quiet bit set.
inline void Bf16StoreLoop(const float* in, int64_t n, uint8_t* p) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &in[i], 4);
    const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (bits >> 16) | 0x40u;
    const uint16_t h = static_cast<uint16_t>((bits & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
    std::memcpy(p + 2 * i, &h, 2);
  }
}

}  // namespace
}  // namespace nsim
