// The AVX2 build of dtype_run_loops.h (sim/memory/BUILD: -mavx2); called only
// when the host has AVX2 (dtype_runs.cc checks at run time).
#include "sim/memory/dtype_run_loops.h"
#include "sim/memory/dtype_runs.h"

namespace nsim {
namespace dtype_runs_internal {

void Bf16LoadAvx2(const uint8_t* p, int64_t n, float* out) { Bf16LoadLoop(p, n, out); }
void Bf16StoreAvx2(const float* in, int64_t n, uint8_t* p) { Bf16StoreLoop(in, n, p); }

}  // namespace dtype_runs_internal
}  // namespace nsim
