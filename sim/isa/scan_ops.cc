// VectorE tensor_tensor_scan (nki.isa.tensor_tensor_scan): a running
// combination along the free axis, one independent chain per partition:
//   dst[p, 0] = op1(op0(src0[p, 0], initial[p]), src1[p, 0])
//   dst[p, i] = op1(op0(src0[p, i], dst[p, i-1]), src1[p, i])
// over the free elements in row-major order. `initial` is an immediate or a
// [P, 1] column (scalar0). The carried value stays fp32 inside the engine
// (VectorE computes in fp32 and casts on write); dst gets the rounded result.
// Text form: `vector: tensor_tensor_scan DST, DATA0, DATA1 op0=.. op1=.. initial=..`
#include <algorithm>

#include "sim/isa/common.h"
#include "sim/isa/value_kernels.h"

namespace nsim {
namespace isa {
namespace {

void ValidateScan(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "data0");
  RequireOnChip(k, in, in.src1, "data1");
  RequireSameShape(k, in, in.dst, "dst", in.src0, "data0");
  RequireSameShape(k, in, in.dst, "dst", in.src1, "data1");
  if (!IsArithmetic(in.alu0)) Fail(k, in, "needs op0=add|subtract|multiply|max|min|divide|pow");
  if (!IsArithmetic(in.alu1)) Fail(k, in, "needs op1=add|subtract|multiply|max|min|divide|pow");
  RequireColumn(k, in, in.scalar0, "initial", in.src0);
}

// S11 (nki.isa docs v2.2x, "Estimated instruction cost" of tensor_tensor_scan):
// max(MIN_II, 2N) VectorE cycles, N = free elements per partition. The 2 is
// the config's two-input factor (vector.two_input_factor, the same S11 2N of
// tensor_tensor off its fast path); no performance mode is documented for the
// scan, so none applies. divide/pow cost as elsewhere on VectorE.
InstrCost CostScan(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  const VectorEngineParams& v = c.vector;
  const double factor = std::max(VectorAluFactor(in.alu0, v), VectorAluFactor(in.alu1, v));
  double work = static_cast<double>(in.src0.FreeElements()) * v.two_input_factor * factor;
  if (AnyStridePenalty(k, v.stride_penalty_bytes, {&in.dst, &in.src0, &in.src1})) work *= 2;
  return EngineCost(v, work);
}

void ExecScan(ExecContext& ctx, const InstructionView& in) {
  const int64_t per = in.src0.FreeElements();
  const ScalarColumn initial = ScalarPerPartition(ctx, in.scalar0, 2);
  ElementwiseRows<2>(ctx, in.dst, {&in.src0, &in.src1}, [&](float* const* rows, int64_t first, int64_t n) {
    for (int64_t r = 0; r < n; ++r) ScanRow(in.alu0, in.alu1, rows[0] + r * per, rows[1] + r * per, initial[first + r], per);
  });
}

// Two ALU operations per element.
int64_t ScanFlops(const Kernel&, const InstructionView& in) { return 2 * in.dst.NumElements(); }

SIM_REGISTER_OPCODE(tensor_tensor_scan, {Opcode::kTensorTensorScan, ValidateScan, CostScan, ExecScan, ScanFlops});

}  // namespace
}  // namespace isa
}  // namespace nsim
