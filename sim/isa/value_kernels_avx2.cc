// value_kernel_loops.h built for AVX2 hosts (sim/isa/BUILD: -mavx2
// -ffp-contract=off, no FMA); value_kernels.cc chooses it once per process
// when the host has AVX2.
#include "sim/isa/value_kernel_loops.h"
#include "sim/isa/value_kernels.h"

namespace nsim {
namespace isa {
namespace value_kernels_internal {

const Table kAvx2 = loops::kThisBuild;

}  // namespace value_kernels_internal
}  // namespace isa
}  // namespace nsim
