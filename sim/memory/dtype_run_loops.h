#pragma once
// The bf16 conversion loops, written once over the element conversions of
// sim/base/dtype.h and compiled in dtype_runs.cc (portable) and
// dtype_runs_avx2.cc (-mavx2). Internal linkage: each file keeps its own
// build of them. Branch-free, so both builds vectorise.
#include <cstdint>
#include <cstring>

#include "sim/base/dtype.h"
#include "sim/memory/dtype_runs.h"

namespace nsim {
namespace {

inline void Bf16LoadLoop(const uint8_t* p, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, p + 2 * i, 2);
    out[i] = BF16ToFloat(h);
  }
}

inline void Bf16StoreLoop(const float* in, int64_t n, uint8_t* p) {
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t h = FloatToBF16(in[i]);
    std::memcpy(p + 2 * i, &h, 2);
  }
}

// This build's loops as a table (dtype_runs.h).
constexpr dtype_runs_internal::Bf16Loops kThisBuildBf16Loops = {&Bf16LoadLoop, &Bf16StoreLoop};

}  // namespace
}  // namespace nsim
