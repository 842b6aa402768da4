#pragma once
// Converting a run of packed device elements to and from fp32: the inner
// loops of access.cc. Stores round as sim/base/dtype.h (bf16/fp16 to nearest
// even). Conversions are exact per element, so the AVX2 and AVX-512 builds
// of the bf16 loops (dtype_runs_avx2.cc, dtype_runs_avx512.cc, chosen once
// per process) give the same bits as the portable one.
#include <cstdint>

#include "sim/base/dtype.h"

namespace nsim {

void LoadRun(DType t, const uint8_t* p, int64_t n, float* out);
void StoreRun(DType t, uint8_t* p, int64_t n, const float* in);

// The loops LoadRun and StoreRun run for `t`: callers converting many runs
// of one dtype (a tile's rows) take the dtype switch once.
using LoadRunFn = void (*)(const uint8_t* p, int64_t n, float* out);
using StoreRunFn = void (*)(const float* in, int64_t n, uint8_t* p);
LoadRunFn LoadRunFor(DType t);
StoreRunFn StoreRunFor(DType t);

namespace dtype_runs_internal {
// The bf16 loops of one build (dtype_run_loops.h).
struct Bf16Loops {
  void (*load)(const uint8_t* p, int64_t n, float* out);
  void (*store)(const float* in, int64_t n, uint8_t* p);
};
extern const Bf16Loops kPortableBf16Loops;
extern const Bf16Loops kAvx2Bf16Loops;       // call only when HostHasAvx2Fma()
extern const Bf16Loops kAvx512Bf16Loops;     // call only when HostHasAvx512Bf16()
}  // namespace dtype_runs_internal

}  // namespace nsim
