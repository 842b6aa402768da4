// The AVX-512 BF16 build of dtype_run_loops.h (sim/memory/BUILD); called
// only when the host has AVX-512 BF16 (dtype_runs.cc chooses once per process).
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports its own AVX-512 intrinsics' deliberately undefined
// vectors (_mm512_undefined_*) as maybe uninitialised.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "sim/memory/dtype_runs.h"

#include "sim/memory/dtype_run_loops.h"

namespace nsim {
namespace dtype_runs_internal {

const Bf16Loops kAvx512Bf16Loops = kThisBuildBf16Loops;

}  // namespace dtype_runs_internal
}  // namespace nsim
