// value_kernels.h: the portable build of value_kernel_loops.h, or its AVX2
// build (value_kernels_avx2.cc) when the host has AVX2. Both give the same
// bits (benchmarks:values_fingerprint, value_kernels_test).
#include "sim/isa/value_kernels.h"

#include "sim/base/host_cpu.h"
#include "sim/isa/value_kernel_loops.h"
#include "sim/isa/value_kernels_avx2.h"

namespace nsim {
namespace isa {
namespace avx2 = value_kernels_avx2;

void AluVector(AluOp op, float* a, const float* b, int64_t n) {
  if (HostHasAvx2Fma()) return avx2::AluVector(op, a, b, n);
  loops::AluVector(op, a, b, n);
}

void AluScalar(AluOp op, float* a, float s, int64_t n) {
  if (HostHasAvx2Fma()) return avx2::AluScalar(op, a, s, n);
  loops::AluScalar(op, a, s, n);
}

void ActivateRow(ActFunc f, float* row, float scale, float bias, int64_t n) {
  if (HostHasAvx2Fma()) return avx2::ActivateRow(f, row, scale, bias, n);
  loops::ActivateRow(f, row, scale, bias, n);
}

void ReduceRows(ReduceOp op, const float* x, int64_t rows, int64_t n, float* out) {
  if (HostHasAvx2Fma()) return avx2::ReduceRows(op, x, rows, n, out);
  loops::ReduceRows(op, x, rows, n, out);
}

float SumRow(const float* row, int64_t n) {
  if (HostHasAvx2Fma()) return avx2::SumRow(row, n);
  return loops::SumRow(row, n);
}

void ScanRow(AluOp op0, AluOp op1, float* a, const float* b, float initial, int64_t n) {
  if (HostHasAvx2Fma()) return avx2::ScanRow(op0, op1, a, b, initial, n);
  loops::ScanRow(op0, op1, a, b, initial, n);
}

void IotaRow(double start, double step, int32_t n, float* row) {
  if (HostHasAvx2Fma()) return avx2::IotaRow(start, step, n, row);
  loops::IotaRow(start, step, n, row);
}

}  // namespace isa
}  // namespace nsim
