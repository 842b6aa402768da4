// The AVX2 build of dtype_run_loops.h (sim/memory/BUILD: -mavx2); called only
// when the host has AVX2 (dtype_runs.cc chooses once per process).
#include "sim/memory/dtype_runs.h"

#include "sim/memory/dtype_run_loops.h"

namespace nsim {
namespace dtype_runs_internal {

const Bf16Loops kAvx2Bf16Loops = kThisBuildBf16Loops;

}  // namespace dtype_runs_internal
}  // namespace nsim
