// Two-op VectorE/GpSimd instructions: scalar_tensor_tensor and
// tensor_scalar_reduce, costed by S11 (trainium-architecture.md, VectorE
// table): scalar_tensor_tensor "N if data and operand1 BF16, op0=subtract,
// op1=multiply, N even; else 2N" (`vector.two_input_factor`);
// tensor_scalar_reduce "max(MIN_II, N) + MIN_II". Every II is at least
// MIN_II (EngineCost). On GpSimd the same cycles at GpSimd's clock (assumed:
// S11 gives VectorE's only).
#include <algorithm>

#include "sim/isa/common.h"
#include "sim/isa/value_kernels.h"

namespace nsim {
namespace isa {
namespace {

const EngineParams& EngineOf(const InstructionView& in, const HardwareConfig& c) {
  if (in.engine == EngineId::kGpSimd) return c.gpsimd;
  return c.vector;
}

// ---- scalar_tensor_tensor ----
void ValidateScalarTensorTensor(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "data");
  RequireOnChip(k, in, in.src1, "data1");
  RequireSameShape(k, in, in.dst, "dst", in.src0, "data");
  RequireSameShape(k, in, in.dst, "dst", in.src1, "data1");
  if (!IsArithmetic(in.alu0) || !IsArithmetic(in.alu1)) Fail(k, in, "needs op0= and op1= (ALU ops)");
  RequireColumn(k, in, in.scalar0, "scalar0", in.src0);
}

InstrCost CostScalarTensorTensor(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  const VectorEngineParams& v = c.vector;
  const double factor = std::max(VectorAluFactor(in.alu0, v), VectorAluFactor(in.alu1, v));
  const int64_t n = in.src0.FreeElements();
  const bool fast = TypeOf(k, in.src0) == DType::kBF16 && TypeOf(k, in.src1) == DType::kBF16 &&
                    in.alu0 == AluOp::kSub && in.alu1 == AluOp::kMul && n % 2 == 0;
  double work = static_cast<double>(n) * (fast ? 1.0 : v.two_input_factor) * factor;
  if (AnyStridePenalty(k, v.stride_penalty_bytes, {&in.dst, &in.src0, &in.src1})) work *= 2;
  return EngineCost(EngineOf(in, c), work);
}

void ExecScalarTensorTensor(ExecContext& ctx, const InstructionView& in) {
  const int64_t per = in.src0.FreeElements();
  const ScalarColumn s0 = ScalarPerPartition(ctx, in.scalar0, 2);
  ElementwiseRows<2>(ctx, in.dst, {&in.src0, &in.src1}, [&](float* const* rows, int64_t first, int64_t n) {
    for (int64_t p = first; p < first + n; ++p) AluScalar(in.alu0, rows[0] + (p - first) * per, s0[p], per);
    AluVector(in.alu1, rows[0], rows[1], n * per);
  });
}

int64_t TwoOpFlops(const Kernel&, const InstructionView& in) { return 2 * in.dst.NumElements(); }

SIM_REGISTER_OPCODE(scalar_tensor_tensor, {Opcode::kScalarTensorTensor, ValidateScalarTensorTensor,
                                           CostScalarTensorTensor, ExecScalarTensorTensor, TwoOpFlops});

// ---- tensor_scalar_reduce ----
void ValidateTensorScalarReduce(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "data");
  RequireSameShape(k, in, in.dst, "dst", in.src0, "data");
  if (!IsArithmetic(in.alu0)) Fail(k, in, "needs op0= (an ALU op)");
  RequireColumn(k, in, in.scalar0, "scalar0", in.src0);
  if (in.reduce == ReduceOp::kMean) Fail(k, in, "reduce=mean is not an accumulate op (sum, max or min)");
  RequireOnChip(k, in, in.acc, "acc");
  Scalar as_column;
  as_column.is_ap = true;
  as_column.ap = in.acc;
  RequireColumn(k, in, as_column, "acc", in.src0);
}

InstrCost CostTensorScalarReduce(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  const VectorEngineParams& v = c.vector;
  double work = static_cast<double>(in.src0.FreeElements()) * VectorAluFactor(in.alu0, v);
  if (AnyStridePenalty(k, v.stride_penalty_bytes, {&in.dst, &in.src0})) work *= 2;
  const EngineParams& e = EngineOf(in, c);
  const double ii = std::max(static_cast<double>(e.min_ii_cycles), work);
  return EngineCost(e, ii + static_cast<double>(e.min_ii_cycles));
}

void ExecTensorScalarReduce(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.src0.Partitions(), per = in.src0.FreeElements();
  const ScalarColumn s0 = ScalarPerPartition(ctx, in.scalar0, 2);
  ScratchFloats& acc = ctx.buf[3];
  acc.resize(static_cast<size_t>(parts));
  ElementwiseRows<1>(ctx, in.dst, {&in.src0}, [&](float* const* rows, int64_t first, int64_t n) {
    for (int64_t p = first; p < first + n; ++p) {
      float* row = rows[0] + (p - first) * per;
      AluScalar(in.alu0, row, s0[p], per);
      ReduceRows(in.reduce, row, 1, per, &acc[p]);  // the fp32 results, before dst's rounding
    }
  });
  ctx.Write(in.acc, acc);
}

SIM_REGISTER_OPCODE(tensor_scalar_reduce, {Opcode::kTensorScalarReduce, ValidateTensorScalarReduce,
                                           CostTensorScalarReduce, ExecTensorScalarReduce, TwoOpFlops});

}  // namespace
}  // namespace isa
}  // namespace nsim
