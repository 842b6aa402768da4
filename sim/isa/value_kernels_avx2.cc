// value_kernel_loops.h built for AVX2 hosts (sim/isa/BUILD: -mavx2
// -ffp-contract=off, no FMA).
#include "sim/isa/value_kernels_avx2.h"

#include "sim/isa/value_kernel_loops.h"

namespace nsim {
namespace isa {
namespace value_kernels_avx2 {

void AluVector(AluOp op, float* a, const float* b, int64_t n) { loops::AluVector(op, a, b, n); }
void AluScalar(AluOp op, float* a, float s, int64_t n) { loops::AluScalar(op, a, s, n); }
void ActivateRow(ActFunc f, float* row, float scale, float bias, int64_t n) {
  loops::ActivateRow(f, row, scale, bias, n);
}
void ReduceRows(ReduceOp op, const float* x, int64_t rows, int64_t n, float* out) {
  loops::ReduceRows(op, x, rows, n, out);
}
float SumRow(const float* row, int64_t n) { return loops::SumRow(row, n); }
void ScanRow(AluOp op0, AluOp op1, float* a, const float* b, float initial, int64_t n) {
  loops::ScanRow(op0, op1, a, b, initial, n);
}
void IotaRow(double start, double step, int32_t n, float* row) { loops::IotaRow(start, step, n, row); }

}  // namespace value_kernels_avx2
}  // namespace isa
}  // namespace nsim
