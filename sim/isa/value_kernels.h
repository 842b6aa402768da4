#pragma once
// The element loops of the compute instructions, one call per row rather
// than per element: the op or function switch is taken once, outside the
// loop, so each case is a plain loop the compiler vectorises (this library
// builds with -O3; no fast-math, so every result is the same float the
// per-element code computed, bit for bit). Issue 12: value computation was
// up to 86 % of a run, with an out-of-line ALU call per element. On hosts
// with AVX2 the same loops run from an AVX2 build (value_kernel_loops.h).
#include <cstdint>

#include "sim/kernel/kernel.h"

namespace nsim {
namespace isa {

#include "sim/isa/value_kernel_decls.inc"  // IWYU pragma: export

}  // namespace isa
}  // namespace nsim
