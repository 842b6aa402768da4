// Selection instructions: tensor_copy_predicated, max8, nc_find_index8,
// costed by S11 (trainium-architecture.md, VectorE table):
// tensor_copy_predicated "max(MIN_II, N) if src/predicate split SBUF/PSUM;
// max(MIN_II, 2N) if both in SBUF" (`vector.two_input_factor`); max8 and
// nc_find_index8 "N" (every II is at least MIN_II: EngineCost).
#include <algorithm>
#include <functional>
#include <string>

#include "sim/isa/common.h"

namespace nsim {
namespace isa {
namespace {

constexpr int64_t kTop = 8;  // max8 / nc_find_index8: 8 values per partition (nki.isa.max8)

const EngineParams& EngineOf(const InstructionView& in, const HardwareConfig& c) {
  if (in.engine == EngineId::kGpSimd) return c.gpsimd;
  return c.vector;
}

// ---- tensor_copy_predicated ----
void ValidateCopyPredicated(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "src");
  RequireOnChip(k, in, in.src1, "predicate");
  RequireSameShape(k, in, in.dst, "dst", in.src0, "src");
  RequireSameShape(k, in, in.dst, "dst", in.src1, "predicate");
}

InstrCost CostCopyPredicated(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  const bool split = InSpace(k, in.src0, MemSpace::kPsum) != InSpace(k, in.src1, MemSpace::kPsum);
  double work = static_cast<double>(in.src0.FreeElements()) * (split ? 1.0 : c.vector.two_input_factor);
  if (AnyStridePenalty(k, c.vector.stride_penalty_bytes, {&in.dst, &in.src0, &in.src1})) work *= 2;
  return EngineCost(EngineOf(in, c), work);
}

void ExecCopyPredicated(ExecContext& ctx, const InstructionView& in) {
  const int64_t per = in.src0.FreeElements();
  ElementwiseRows<3>(ctx, in.dst, {&in.dst, &in.src0, &in.src1}, [&](float* const* rows, int64_t, int64_t n) {
    for (int64_t i = 0; i < n * per; ++i) {
      if (rows[2][i] != 0.0f) rows[0][i] = rows[1][i];
    }
  });
}

SIM_REGISTER_OPCODE(tensor_copy_predicated, {Opcode::kTensorCopyPredicated, ValidateCopyPredicated,
                                             CostCopyPredicated, ExecCopyPredicated,
                                             [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

// ---- max8 / nc_find_index8 ----
void RequireTop8(const Kernel& k, const InstructionView& in, const AccessPattern& out, const char* role,
                 const AccessPattern& like) {
  if (out.Partitions() != like.Partitions() || out.FreeElements() != kTop) {
    Fail(k, in, std::string(role) + " " + OperandName(k, out) + " must be [" + std::to_string(like.Partitions()) +
                    ", 8], got [" + std::to_string(out.Partitions()) + ", " + std::to_string(out.FreeElements()) +
                    "]");
  }
}

void ValidateMax8(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "src");
  RequireTop8(k, in, in.dst, "dst", in.src0);
  if (in.src0.FreeElements() < kTop) {
    Fail(k, in, "src " + OperandName(k, in.src0) + " has " + std::to_string(in.src0.FreeElements()) +
                    " elements per partition; max8 needs at least 8");
  }
}

InstrCost CostRowScan(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  double work = static_cast<double>(in.src0.FreeElements());
  if (AnyStridePenalty(k, c.vector.stride_penalty_bytes, {&in.src0})) work *= 2;
  return EngineCost(c.vector, work);
}

void ExecMax8(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.src0.Partitions(), per = in.src0.FreeElements();
  const ScratchFloats& x = ctx.Read(in.src0, 0);
  ScratchFloats& out = ctx.buf[1];
  out.resize(static_cast<size_t>(parts * kTop));
  for (int64_t p = 0; p < parts; ++p) {
    std::partial_sort_copy(x.data() + p * per, x.data() + (p + 1) * per, out.data() + p * kTop,
                           out.data() + (p + 1) * kTop, std::greater<float>());
  }
  ctx.Write(in.dst, out);
}

int64_t RowFlops(const Kernel&, const InstructionView& in) { return in.src0.NumElements(); }

SIM_REGISTER_OPCODE(max8, {Opcode::kMax8, ValidateMax8, CostRowScan, ExecMax8, RowFlops});

void ValidateFindIndex8(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "data");
  RequireOnChip(k, in, in.src1, "vals");
  RequireTop8(k, in, in.dst, "dst", in.src0);
  RequireTop8(k, in, in.src1, "vals", in.src0);
}

// A value that does not occur in the row gets the row's length (assumed:
// NKI documents no result for it; max8's values always occur).
void ExecFindIndex8(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.src0.Partitions(), per = in.src0.FreeElements();
  const ScratchFloats& x = ctx.Read(in.src0, 0);
  const ScratchFloats& vals = ctx.Read(in.src1, 1);
  ScratchFloats& out = ctx.buf[2];
  out.resize(static_cast<size_t>(parts * kTop));
  for (int64_t p = 0; p < parts; ++p) {
    const float* row = x.data() + p * per;
    for (int64_t j = 0; j < kTop; ++j) {
      const float v = vals[p * kTop + j];
      out[p * kTop + j] = static_cast<float>(std::find(row, row + per, v) - row);
    }
  }
  ctx.Write(in.dst, out);
}

SIM_REGISTER_OPCODE(nc_find_index8, {Opcode::kFindIndex8, ValidateFindIndex8, CostRowScan, ExecFindIndex8, RowFlops});

}  // namespace
}  // namespace isa
}  // namespace nsim
