// The AVX-512 BF16 build of dtype_run_loops.h (sim/memory/BUILD); called
// only when the host has AVX-512 BF16 (dtype_runs.cc chooses once per process).
#include "sim/memory/dtype_runs.h"

#include "sim/memory/dtype_run_loops.h"

namespace nsim {
namespace dtype_runs_internal {

const Bf16Loops kAvx512Bf16Loops = kThisBuildBf16Loops;

}  // namespace dtype_runs_internal
}  // namespace nsim
