#pragma once
// The AVX2 build of value_kernel_loops.h (value_kernels_avx2.cc); only
// value_kernels.cc calls it, after checking the host (sim/base/host_cpu.h).
#include <cstdint>

#include "sim/kernel/kernel.h"

namespace nsim {
namespace isa {
namespace value_kernels_avx2 {

void AluVector(AluOp op, float* a, const float* b, int64_t n);
void AluScalar(AluOp op, float* a, float s, int64_t n);
void ActivateRow(ActFunc f, float* row, float scale, float bias, int64_t n);
void ReduceRows(ReduceOp op, const float* x, int64_t rows, int64_t n, float* out);
float SumRow(const float* row, int64_t n);
void ScanRow(AluOp op0, AluOp op1, float* a, const float* b, float initial, int64_t n);
void IotaRow(double start, double step, int32_t n, float* row);

}  // namespace value_kernels_avx2
}  // namespace isa
}  // namespace nsim
