#pragma once
// The AVX2 build of value_kernel_loops.h (value_kernels_avx2.cc); only
// value_kernels.cc calls it, after checking the host (sim/base/host_cpu.h).
#include <cstdint>

#include "sim/kernel/kernel.h"

namespace nsim {
namespace isa {
namespace value_kernels_avx2 {

#include "sim/isa/value_kernel_decls.inc"

}  // namespace value_kernels_avx2
}  // namespace isa
}  // namespace nsim
