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

// a[i] = op(a[i], b[i]) for i < n.
void AluVector(AluOp op, float* a, const float* b, int64_t n);
// a[i] = op(a[i], s) for i < n.
void AluScalar(AluOp op, float* a, float s, int64_t n);
// row[i] = f(row[i] * scale + bias) for i < n.
void ActivateRow(ActFunc f, float* row, float scale, float bias, int64_t n);
// out[r] = the reduction of row r, x[r * n .. r * n + n) (n >= 1), accumulated
// left to right from its first element; mean divides the sum by n. Rows are
// folded side by side (independent chains, each still left to right), so the
// adds overlap instead of waiting on one another's latency.
void ReduceRows(ReduceOp op, const float* x, int64_t rows, int64_t n, float* out);
// Sum of row[0..n), left to right.
float SumRow(const float* row, int64_t n);
// The running scan of tensor_tensor_scan over one row, carried in fp32:
// carry = op1(op0(a[i], carry), b[i]); a[i] = carry, from carry = initial.
void ScanRow(AluOp op0, AluOp op1, float* a, const float* b, float initial, int64_t n);
// rows[p * stride + i] = fp32((base + p * partition_step) + i * free_step),
// each product and sum in double, for p < parts, i < n. The products
// i * free_step are the same in every row: computed once per call.
void IotaRows(double base, double partition_step, double free_step, int64_t parts, int32_t n, float* rows,
              int64_t stride);

// ReduceRows folds up to this many rows side by side: callers pass at least
// this many rows per call where they can.
constexpr int kReduceRowsSideBySide = 16;

namespace value_kernels_internal {
// One build of the loops, as a table of the entry points above.
struct Table {
  decltype(&AluVector) alu_vector;
  decltype(&AluScalar) alu_scalar;
  decltype(&ActivateRow) activate_row;
  decltype(&ReduceRows) reduce_rows;
  decltype(&SumRow) sum_row;
  decltype(&ScanRow) scan_row;
  decltype(&IotaRows) iota_rows;
};
extern const Table kPortable;  // value_kernels.cc
extern const Table kAvx2;      // value_kernels_avx2.cc: call only when HostHasAvx2Fma()
}  // namespace value_kernels_internal

}  // namespace isa
}  // namespace nsim
