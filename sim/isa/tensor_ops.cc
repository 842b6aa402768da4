// TensorE instructions. matmul is one LoadStationary + MultiplyMoving pair
// (S1): psum[M,N] (+)= stationary[K,M]^T @ moving[K,N], accumulated in fp32.
// transpose runs through the PE array against an identity (S11 nc_transpose).
#include <algorithm>
#include <cmath>

#include "sim/isa/common.h"
#include "sim/isa/gemm.h"

namespace nsim {
namespace isa {
namespace {

double DtypeFactor(const Kernel& k, const InstructionView& in, const TensorEngineParams& t) {
  const bool fp32 = TypeOf(k, in.src0) == DType::kF32 || (in.src1.present() && TypeOf(k, in.src1) == DType::kF32);
  return fp32 ? t.fp32_factor : 1.0;
}

void RequirePsumDst(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  RequireOnChip(k, in, in.dst, "dst");
  if (!InSpace(k, in.dst, MemSpace::kPsum)) Fail(k, in, "dst " + OperandName(k, in.dst) + " must be in PSUM");
  if (TypeOf(k, in.dst) != DType::kF32) Fail(k, in, "dst must be f32: PSUM accumulates in FP32 (S1)");
  const TensorDecl& t = TensorOf(k, in.dst);
  const int64_t first = t.partition_offset + in.dst.offset * 4;
  const int64_t last = first + (in.dst.FreeElements() - 1) * 4;
  if (first / c.memory.psum_bank_bytes != last / c.memory.psum_bank_bytes) {
    Fail(k, in, "dst " + OperandName(k, in.dst) + " crosses a PSUM bank boundary (" +
                    std::to_string(c.memory.psum_bank_bytes) + " B per partition per bank); a matmul output must fit one bank");
  }
}

void ValidateMatmul(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  RequirePsumDst(k, in, c);
  RequireOnChip(k, in, in.src0, "stationary");
  RequireOnChip(k, in, in.src1, "moving");
  for (const AccessPattern* ap : {&in.src0, &in.src1}) {
    if (!InSpace(k, *ap, MemSpace::kSbuf)) Fail(k, in, "matmul operands are read from SBUF; " + OperandName(k, *ap) + " is not");
  }
  const int64_t kk = in.src0.Partitions(), m = in.src0.FreeElements(), n = in.src1.FreeElements();
  auto fail_shape = [&](const std::string& what) {
    Fail(k, in, what + " (stationary [" + std::to_string(kk) + ", " + std::to_string(m) + "], moving [" +
                    std::to_string(in.src1.Partitions()) + ", " + std::to_string(n) + "], dst [" +
                    std::to_string(in.dst.Partitions()) + ", " + std::to_string(in.dst.FreeElements()) + "])");
  };
  if (in.src1.Partitions() != kk) fail_shape("stationary and moving must share the contraction (partition) dim");
  if (kk > c.tensor.rows) fail_shape("contraction dim exceeds the " + std::to_string(c.tensor.rows) + " PE rows");
  if (m > c.tensor.cols) fail_shape("stationary free size exceeds the " + std::to_string(c.tensor.cols) + " PE columns");
  if (n > c.tensor.moving_free_max) fail_shape("moving free size exceeds " + std::to_string(c.tensor.moving_free_max));
  if (in.dst.Partitions() != m || in.dst.FreeElements() != n) fail_shape("dst must be [M, N]");
}

InstrCost CostMatmul(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  const TensorEngineParams& t = c.tensor;
  const double f = DtypeFactor(k, in, t);
  // fp32 (S1 "roughly 4x"; S14 "each FP32 matmul lowers to two FP32_LO_HI
  // instructions"): the total factor is shared by `fp32_passes` passes that
  // pipeline back to back, so one pass costs f / passes of the bf16 pair.
  const double passes = f > 1.0 ? static_cast<double>(t.fp32_passes) : 1.0;
  const double pf = f / passes;
  const double m = static_cast<double>(in.src0.FreeElements()), n = static_cast<double>(in.src1.FreeElements());
  const double ls = std::ceil(m / t.load_stationary_speedup) * pf;                       // fast LoadStationary (S1, S6)
  const double mm = std::max(static_cast<double>(t.mm_init_latency_cycles), n) * pf;     // max(N, MM_INIT_LATENCY) (S1)
  // The next LoadStationary overlaps this MultiplyMoving (background load, S1),
  // so back-to-back pairs issue every max(LS, MM); one pair alone takes LS+MM.
  const double pass_ii = std::max(ls, mm);
  InstrCost cost;
  cost.ii = CyclesToPicos(pass_ii * passes, t.freq_hz);
  cost.latency = CyclesToPicos(pass_ii * (passes - 1) + ls + mm + static_cast<double>(t.pipeline_latency_cycles), t.freq_hz);
  return cost;
}

// A bf16 SBUF operand whose partitions' free elements are contiguous, read
// in place; false otherwise.
bool Bf16RowsOf(ExecContext& ctx, const AccessPattern& ap, Bf16Rows* rows) {
  const BoundAccess* a = ctx.Resolve(ap);
  if (a->dtype != DType::kBF16) return false;
  rows->rows = ContiguousRows(*a, ctx.mem, &rows->pitch);
  return rows->rows != nullptr;
}

void ExecMatmul(ExecContext& ctx, const InstructionView& in) {
  const int64_t kk = in.src0.Partitions(), m = in.src0.FreeElements(), n = in.src1.FreeElements();
  int64_t stride = 0;
  float* psum = F32Rows(ctx, in.dst, &stride);
  Bf16Rows a, b;
  // Operands packed straight from SBUF's bf16 rows (the common case), the
  // product straight into PSUM.
  if (psum != nullptr && Bf16RowsOf(ctx, in.src0, &a) && Bf16RowsOf(ctx, in.src1, &b) &&
      MatmulBf16PartitionOrder(a, b, psum, stride, kk, m, n, in.accumulate)) {
    return;
  }
  const ScratchFloats& s = ctx.Read(in.src0, 0);
  const ScratchFloats& mv = ctx.Read(in.src1, 1);
  // The product goes straight into PSUM when dst's rows are contiguous;
  // accumulation adds the finished product to PSUM's values, as the hardware does.
  if (psum != nullptr) {
    MatmulPartitionOrder(s.data(), mv.data(), psum, stride, kk, m, n, in.accumulate);
    return;
  }
  ScratchFloats& out = ctx.buf[2];
  if (in.accumulate) {
    ctx.Read(in.dst, 2);
  } else {
    out.resize(static_cast<size_t>(m * n));
  }
  MatmulPartitionOrder(s.data(), mv.data(), out.data(), n, kk, m, n, in.accumulate);  // gemm.h: fixed order
  ctx.Write(in.dst, out);
}

SIM_REGISTER_OPCODE(matmul, {Opcode::kMatmul, ValidateMatmul,
                             CostMatmul, ExecMatmul, [](const Kernel&, const InstructionView& in) {
                               return 2 * in.src0.Partitions() * in.src0.FreeElements() * in.src1.FreeElements();
                             }});

// VectorE transposes one 32x32 block (S1: "reshape bank supports 32x32 transpose"; the cross-partition
// movement stays within a 32-partition quadrant).
constexpr int64_t kVectorTransposeBlock = 32;

void ValidateTranspose(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  const bool vector = in.engine == EngineId::kVector;
  if (vector) {
    RequireOnChip(k, in, in.dst, "dst");
  } else {
    RequirePsumDst(k, in, c);
  }
  RequireOnChip(k, in, in.src0, "src");
  const int64_t p = in.src0.Partitions(), f = in.src0.FreeElements();
  if (vector && (p > kVectorTransposeBlock || f > kVectorTransposeBlock)) {
    Fail(k, in, "VectorE transposes at most 32x32; src is [" + std::to_string(p) + ", " + std::to_string(f) + "]");
  }
  if (f > c.tensor.cols) Fail(k, in, "src free size " + std::to_string(f) + " exceeds " + std::to_string(c.tensor.cols) + " (it becomes the partition dim)");
  if (in.dst.Partitions() != f || in.dst.FreeElements() != p) {
    Fail(k, in, "dst must be [" + std::to_string(f) + ", " + std::to_string(p) + "] for src [" + std::to_string(p) +
                    ", " + std::to_string(f) + "]");
  }
}

InstrCost CostTranspose(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  if (in.engine == EngineId::kVector) {  // S11 "nc_transpose (32x32): max(MIN_II, N)" on VectorE
    return EngineCost(c.vector, static_cast<double>(in.src0.FreeElements()));
  }
  const double p = static_cast<double>(in.src0.Partitions()), f = static_cast<double>(in.src0.FreeElements());
  const double work = std::max(p, std::min(static_cast<double>(c.tensor.mm_init_latency_cycles), f)) *
                      DtypeFactor(k, in, c.tensor);  // S11 nc_transpose: max(P, min(64, F))
  return EngineCost(c.tensor, work);
}

void ExecTranspose(ExecContext& ctx, const InstructionView& in) {
  const int64_t p = in.src0.Partitions(), f = in.src0.FreeElements();
  const ScratchFloats& x = ctx.Read(in.src0, 0);
  ScratchFloats& out = ctx.buf[1];
  out.resize(static_cast<size_t>(p * f));
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < f; ++j) out[j * p + i] = x[i * f + j];
  ctx.Write(in.dst, out);
}

SIM_REGISTER_OPCODE(transpose, {Opcode::kTranspose,
                                ValidateTranspose, CostTranspose, ExecTranspose,
                                [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

}  // namespace
}  // namespace isa
}  // namespace nsim
