// VectorE instructions: tensor_tensor, tensor_scalar, tensor_reduce,
// tensor_copy, memset. Costs follow S11 (NC-v2 formulas) with the NC-v3
// performance modes of S2, every factor taken from the config.
#include <algorithm>
#include <cmath>

#include "sim/isa/common.h"
#include "sim/isa/value_kernels.h"

namespace nsim {
namespace isa {
namespace {

bool AllSixteenBit(const Kernel& k, std::initializer_list<const AccessPattern*> aps) {
  for (const AccessPattern* ap : aps) {
    if (ap->present() && !IsFloat16Bit(TypeOf(k, *ap))) return false;
  }
  return true;
}

// S2: tensor_copy / tensor_scalar (and memset) run 4x faster with SBUF-only,
// 16-bit, contiguous operands; 2x when non-contiguous or one side in PSUM.
double CopyPerfMode(const Kernel& k, const InstructionView& in, const VectorEngineParams& v) {
  const AccessPattern* src = in.src0.present() ? &in.src0 : &in.dst;
  if (!AllSixteenBit(k, {&in.dst, src})) return 1.0;
  const bool sbuf = InSpace(k, in.dst, MemSpace::kSbuf) && InSpace(k, *src, MemSpace::kSbuf);
  const bool contiguous = Contiguous(k, in.dst) && Contiguous(k, *src);
  if (sbuf && contiguous) return v.perf_mode_copy;
  return v.perf_mode_copy_partial;
}

// Cost of a one-input elementwise instruction on whichever engine runs it.
InstrCost UnaryCost(const Kernel& k, const InstructionView& in, const HardwareConfig& c, double per_elem) {
  const AccessPattern& main = in.src0.present() ? in.src0 : in.dst;
  const double n = static_cast<double>(main.FreeElements());
  switch (in.engine) {
    case EngineId::kGpSimd:  // S11 tensor_copy/tensor_scalar: max(MIN_II, N) on V, S or G; GPSIMD_START is iota/affine_select's
      return EngineCost(c.gpsimd, n * per_elem);
    case EngineId::kScalar:
      return EngineCost(c.scalar, n * per_elem);
    default: {
      const double perf = CopyPerfMode(k, in, c.vector);
      double work = n * per_elem / perf;
      if (AnyStridePenalty(k, c.vector.stride_penalty_bytes, {&in.dst, &in.src0})) work *= 2;
      InstrCost cost = EngineCost(c.vector, work);
      cost.perf_mode = perf > 1.0;
      return cost;
    }
  }
}

// ---- tensor_tensor ----
void ValidateTensorTensor(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "src0");
  RequireOnChip(k, in, in.src1, "src1");
  RequireSameShape(k, in, in.dst, "dst", in.src0, "src0");
  RequireSameShape(k, in, in.dst, "dst", in.src1, "src1");
  if (!IsArithmetic(in.alu0)) Fail(k, in, "needs op=add|subtract|multiply|max|min|divide|pow");
}

InstrCost CostTensorTensor(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  const VectorEngineParams& v = c.vector;
  const bool psum0 = InSpace(k, in.src0, MemSpace::kPsum), psum1 = InSpace(k, in.src1, MemSpace::kPsum);
  const bool both_sbuf = !psum0 && !psum1;
  const bool simple_op = in.alu0 == AluOp::kAdd || in.alu0 == AluOp::kSub || in.alu0 == AluOp::kMul;
  const bool sixteen = AllSixteenBit(k, {&in.dst, &in.src0, &in.src1});
  // S11: N when one input is in PSUM and the other in SBUF, or both in SBUF,
  // all BF16, op in {add, multiply, subtract} with unit stride; else 2N.
  const bool fast = (psum0 != psum1) ||
                    (both_sbuf && sixteen && simple_op && Contiguous(k, in.src0) && Contiguous(k, in.src1));
  double per_elem = fast ? 1.0 : v.two_input_factor;
  per_elem *= VectorAluFactor(in.alu0, v);
  const double perf = (both_sbuf && sixteen) ? v.perf_mode_tensor_tensor : 1.0;
  double work = static_cast<double>(in.src0.FreeElements()) * per_elem / perf;
  if (AnyStridePenalty(k, v.stride_penalty_bytes, {&in.dst, &in.src0, &in.src1})) work *= 2;
  InstrCost cost = EngineCost(v, work);
  cost.perf_mode = perf > 1.0;
  return cost;
}

void ExecTensorTensor(ExecContext& ctx, const InstructionView& in) {
  const int64_t per = in.src0.FreeElements();
  ElementwiseRows<2>(ctx, in.dst, {&in.src0, &in.src1}, [&](float* const* rows, int64_t, int64_t n) {
    AluVector(in.alu0, rows[0], rows[1], n * per);
  });
}

int64_t ElementFlops(const Kernel&, const InstructionView& in) { return in.dst.NumElements(); }

SIM_REGISTER_OPCODE(tensor_tensor, {Opcode::kTensorTensor, ValidateTensorTensor, CostTensorTensor,
                                    ExecTensorTensor, ElementFlops});

// ---- tensor_scalar ----
void ValidateTensorScalar(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "src");
  RequireSameShape(k, in, in.dst, "dst", in.src0, "src");
  if (in.alu0 == AluOp::kNone) Fail(k, in, "needs op0=...");
  RequireColumn(k, in, in.scalar0, "scalar0", in.src0);
  RequireColumn(k, in, in.scalar1, "scalar1", in.src0);
}

InstrCost CostTensorScalar(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  // S11: performing one operator costs the same as performing two.
  const double factor = std::max(VectorAluFactor(in.alu0, c.vector), VectorAluFactor(in.alu1, c.vector));
  return UnaryCost(k, in, c, factor);
}

void ExecTensorScalar(ExecContext& ctx, const InstructionView& in) {
  const int64_t per = in.src0.FreeElements();
  const bool two_ops = in.alu1 != AluOp::kNone;
  const ScalarColumn s0 = ScalarPerPartition(ctx, in.scalar0, 1);
  const ScalarColumn s1 = two_ops ? ScalarPerPartition(ctx, in.scalar1, 2) : ScalarColumn{};
  ElementwiseRows<1>(ctx, in.dst, {&in.src0}, [&](float* const* rows, int64_t first, int64_t n) {
    for (int64_t p = first; p < first + n; ++p) {  // each element sees op0 then op1, as one pass would
      float* row = rows[0] + (p - first) * per;
      AluScalar(in.alu0, row, s0[p], per);
      if (two_ops) AluScalar(in.alu1, row, s1[p], per);
    }
  });
}

SIM_REGISTER_OPCODE(tensor_scalar, {Opcode::kTensorScalar,
                                    ValidateTensorScalar, CostTensorScalar, ExecTensorScalar, ElementFlops});

// ---- tensor_reduce (trailing free dims) ----
// How many elements of a partition's row fold into one: the trailing free dims
// of src that dst lacks (nki.isa.tensor_reduce's axis= names the last dims of
// the access pattern, contiguous in memory or not); 0 when no suffix of src's
// free dims leaves dst's free size.
int64_t ReducedSize(const AccessPattern& src, const AccessPattern& dst) {
  const int64_t kept = dst.FreeElements();
  if (kept <= 0 || src.FreeElements() % kept != 0) return 0;
  const int64_t want = src.FreeElements() / kept;
  int64_t suffix = 1;
  for (size_t i = src.dims.size(); i > 1 && suffix < want; --i) suffix *= src.dims[i - 1].size;
  return suffix == want ? want : 0;
}

void ValidateTensorReduce(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "src");
  if (in.dst.Partitions() != in.src0.Partitions() || ReducedSize(in.src0, in.dst) == 0) {
    Fail(k, in, "dst must have src's shape without one or more of its trailing free dims: src [" +
                    std::to_string(in.src0.Partitions()) + ", " + std::to_string(in.src0.FreeElements()) +
                    "], dst [" + std::to_string(in.dst.Partitions()) + ", " +
                    std::to_string(in.dst.FreeElements()) + "]");
  }
}

InstrCost CostTensorReduce(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  // S11: N/2 with bf16 in and out and op add or max; else N.
  const bool fast = TypeOf(k, in.src0) == DType::kBF16 && TypeOf(k, in.dst) == DType::kBF16 &&
                    in.reduce != ReduceOp::kMin;
  double work = static_cast<double>(in.src0.FreeElements()) * (fast ? c.vector.reduce_fast_factor : 1.0);
  if (AnyStridePenalty(k, c.vector.stride_penalty_bytes, {&in.src0})) work *= 2;
  return EngineCost(c.vector, work);
}

// src is read a block of partitions at a time (its fp32 rows stay in L1),
// with at least the rows ReduceRows folds side by side; dst is written once
// every source row is read.
void ExecTensorReduce(ExecContext& ctx, const InstructionView& in) {
  const PartitionRows src(*ctx.Resolve(in.src0), ctx.mem);
  const int64_t inner = ReducedSize(in.src0, in.dst), parts = src.partitions(), per = src.per_row();
  const int64_t folds = inner > 0 ? per / inner : 0;  // reduced rows per partition
  ScratchFloats& out = ctx.buf[1];
  out.resize(static_cast<size_t>(parts * folds));  // every element written below
  if (parts > 0 && folds > 0) {
    const int64_t block = RowBlock(per, parts, (kReduceRowsSideBySide + folds - 1) / folds);
    ScratchFloats& x = ctx.buf[0];
    x.resize(static_cast<size_t>(block * per));
    for (int64_t p = 0; p < parts; p += block) {
      const int64_t n = std::min(block, parts - p);
      src.Read(p, n, x.data());
      ReduceRows(in.reduce, x.data(), n * folds, inner, out.data() + p * folds);
    }
  }
  if (in.negate) {  // the same pass: the engine writes -result (nki.isa.tensor_reduce negate=True)
    for (float& v : out) v = -v;
  }
  ctx.Write(in.dst, out);
}

SIM_REGISTER_OPCODE(tensor_reduce, {Opcode::kTensorReduce, ValidateTensorReduce, CostTensorReduce,
                                    ExecTensorReduce, [](const Kernel&, const InstructionView& in) {
                                      return in.src0.NumElements();
                                    }});

// ---- tensor_copy ----
void ValidateTensorCopy(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "src");
  RequireSameShape(k, in, in.dst, "dst", in.src0, "src");
}

InstrCost CostTensorCopy(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  return UnaryCost(k, in, c, 1.0);
}

void ExecTensorCopy(ExecContext& ctx, const InstructionView& in) {
  ElementwiseRows<1>(ctx, in.dst, {&in.src0}, [](float* const*, int64_t, int64_t) {});
}

SIM_REGISTER_OPCODE(tensor_copy, {Opcode::kTensorCopy,
                                  ValidateTensorCopy, CostTensorCopy, ExecTensorCopy,
                                  [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

// ---- memset ----
void ValidateMemset(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  if (in.scalar0.is_ap) Fail(k, in, "value must be an immediate");
}

InstrCost CostMemset(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  return UnaryCost(k, in, c, 1.0);
}

void ExecMemset(ExecContext& ctx, const InstructionView& in) {
  ScratchFloats& v = ctx.buf[0];
  v.assign(static_cast<size_t>(in.dst.NumElements()), static_cast<float>(in.scalar0.imm));
  ctx.Write(in.dst, v);
}

SIM_REGISTER_OPCODE(memset, {Opcode::kMemset, ValidateMemset,
                             CostMemset, ExecMemset,
                             [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

}  // namespace
}  // namespace isa
}  // namespace nsim
