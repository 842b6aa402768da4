#pragma once
// Converting a run of packed device elements to and from fp32: the inner
// loops of access.cc. Stores round as sim/base/dtype.h (bf16/fp16 to nearest
// even). Conversions are exact per element, so the AVX2 build
// (dtype_runs_avx2.cc, picked at run time) gives the same bits as the
// portable one.
#include <cstdint>

#include "sim/base/dtype.h"

namespace nsim {

void LoadRun(DType t, const uint8_t* p, int64_t n, float* out);
void StoreRun(DType t, uint8_t* p, int64_t n, const float* in);

namespace dtype_runs_internal {
// The bf16 loops of each build (exposed for the test).
void Bf16LoadPortable(const uint8_t* p, int64_t n, float* out);
void Bf16StorePortable(const float* in, int64_t n, uint8_t* p);
void Bf16LoadAvx2(const uint8_t* p, int64_t n, float* out);
void Bf16StoreAvx2(const float* in, int64_t n, uint8_t* p);
}  // namespace dtype_runs_internal

}  // namespace nsim
