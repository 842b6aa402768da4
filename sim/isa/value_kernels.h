#pragma once
// The element loops of the compute instructions, one call per row rather
// than per element: the op or function switch is taken once, outside the
// loop, so each case is a plain loop the compiler vectorises (this library
// builds with -O3; no fast-math, so every result is the same float the
// per-element code computed, bit for bit). Issue 12: value computation was
// up to 86 % of a run, with an out-of-line ALU call per element. On hosts
// with AVX2 the same loops run from an AVX2 build (value_kernel_loops.h),
// chosen once per process.
#include <cstdint>

#include "sim/kernel/kernel.h"

namespace nsim {
namespace isa {

#include "sim/isa/value_kernel_decls.inc"  // IWYU pragma: export

// ReduceRows folds this many rows side by side (fewer rows: one at a time).
constexpr int kReduceRowsSideBySide = 8;

namespace value_kernels_internal {
// One build of the loops, as a table of the entry points above.
struct Table {
  decltype(&AluVector) alu_vector;
  decltype(&AluScalar) alu_scalar;
  decltype(&ActivateRow) activate_row;
  decltype(&ReduceRows) reduce_rows;
  decltype(&SumRow) sum_row;
  decltype(&ScanRow) scan_row;
  decltype(&IotaRow) iota_row;
};
extern const Table kPortable;  // value_kernels.cc
extern const Table kAvx2;      // value_kernels_avx2.cc: call only when HostHasAvx2Fma()
}  // namespace value_kernels_internal

}  // namespace isa
}  // namespace nsim
