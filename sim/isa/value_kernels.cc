// value_kernels.h: the portable build of value_kernel_loops.h, or its AVX2
// build (value_kernels_avx2.cc) when the host has AVX2, chosen once per
// process (sim/base/host_cpu.h). Both give the same bits
// (benchmarks:values_fingerprint, value_kernels_test).
#include "sim/isa/value_kernels.h"

#include "sim/base/host_cpu.h"
#include "sim/isa/value_kernel_loops.h"

namespace nsim {
namespace isa {

namespace value_kernels_internal {
const Table kPortable = loops::kThisBuild;
}  // namespace value_kernels_internal

namespace {
HostBuild<value_kernels_internal::Table> g_build(value_kernels_internal::kPortable, value_kernels_internal::kAvx2);
[[maybe_unused]] const bool g_build_chosen = g_build.ChooseForHost();
}  // namespace

void AluVector(AluOp op, float* a, const float* b, int64_t n) { g_build->alu_vector(op, a, b, n); }
void AluScalar(AluOp op, float* a, float s, int64_t n) { g_build->alu_scalar(op, a, s, n); }
void ActivateRow(ActFunc f, float* row, float scale, float bias, int64_t n) {
  g_build->activate_row(f, row, scale, bias, n);
}
void ReduceRows(ReduceOp op, const float* x, int64_t rows, int64_t n, float* out) {
  g_build->reduce_rows(op, x, rows, n, out);
}
float SumRow(const float* row, int64_t n) { return g_build->sum_row(row, n); }
void ScanRow(AluOp op0, AluOp op1, float* a, const float* b, float initial, int64_t n) {
  g_build->scan_row(op0, op1, a, b, initial, n);
}
void IotaRows(double base, double partition_step, double free_step, int64_t parts, int32_t n, float* rows,
              int64_t stride) {
  g_build->iota_rows(base, partition_step, free_step, parts, n, rows, stride);
}

}  // namespace isa
}  // namespace nsim
