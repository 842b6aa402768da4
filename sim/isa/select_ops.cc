// Selection instructions: tensor_copy_predicated, max8, nc_find_index8,
// nc_match_replace8, costed by S11 (trainium-architecture.md, VectorE table):
// tensor_copy_predicated "max(MIN_II, N) if src/predicate split SBUF/PSUM;
// max(MIN_II, 2N) if both in SBUF" (`vector.two_input_factor`); max8 and
// nc_find_index8 "N"; nc_match_replace8 "min(MIN_II, N)" as S11 prints it,
// read as max(MIN_II, N) like every other VectorE instruction (a min would
// make a 16K-element scan cost 64 cycles). Every II is at least MIN_II
// (EngineCost), so all three are max(MIN_II, N) with N = the data's
// elements per partition.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

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

// The position in row[0, per) of the first element equal to v that is not
// yet taken, marking it taken; `per` when there is none (assumed: NKI
// documents no result for a value not in the data; max8's values always
// occur). Duplicate vals thus pair with distinct positions (nki.isa
// nc_match_replace8 docs, v2.32: "each occurrence of a duplicate in data is
// paired with a distinct column of dst_idx").
int64_t TakeFirst(const float* row, int64_t per, float v, std::vector<char>& taken) {
  for (int64_t i = 0; i < per; ++i) {
    if (!taken[i] && row[i] == v) {
      taken[i] = 1;
      return i;
    }
  }
  return per;
}

// For each partition, matches vals[0..7] (in the order `reverse` picks) to
// distinct positions of the data row: idx[j] = the position vals[j] took.
// nc_find_index8 goes j = 0..7 (duplicates get ascending positions),
// nc_match_replace8 j = 7..0 (descending: "the instruction processes vals in
// reverse order (i = 7, 6, ..., 0)", nki.isa docs v2.32).
void MatchRows(const ScratchFloats& x, const ScratchFloats& vals, int64_t parts, int64_t per, bool reverse,
               ScratchFloats& idx) {
  idx.resize(static_cast<size_t>(parts * kTop));
  std::vector<char> taken(static_cast<size_t>(per));
  for (int64_t p = 0; p < parts; ++p) {
    std::fill(taken.begin(), taken.end(), 0);
    for (int64_t n = 0; n < kTop; ++n) {
      const int64_t j = reverse ? kTop - 1 - n : n;
      idx[p * kTop + j] = static_cast<float>(TakeFirst(x.data() + p * per, per, vals[p * kTop + j], taken));
    }
  }
}

void ExecFindIndex8(ExecContext& ctx, const InstructionView& in) {
  const ScratchFloats& x = ctx.Read(in.src0, 0);
  const ScratchFloats& vals = ctx.Read(in.src1, 1);
  MatchRows(x, vals, in.src0.Partitions(), in.src0.FreeElements(), false, ctx.buf[2]);
  ctx.Write(in.dst, ctx.buf[2]);
}

SIM_REGISTER_OPCODE(nc_find_index8, {Opcode::kFindIndex8, ValidateFindIndex8, CostRowScan, ExecFindIndex8, RowFlops});

// ---- nc_match_replace8 ----
void ValidateMatchReplace8(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "data");
  RequireOnChip(k, in, in.src1, "vals");
  RequireSameShape(k, in, in.dst, "dst", in.src0, "data");
  RequireTop8(k, in, in.src1, "vals", in.src0);
  if (in.scalar0.is_ap) Fail(k, in, "imm must be a number");
  if (in.acc.present()) {
    RequireOnChip(k, in, in.acc, "idx");
    RequireTop8(k, in, in.acc, "idx", in.src0);
  }
}

// dst = data with each matched position set to imm; idx (when given) = the
// matched positions. A value not in the row matches nothing (its idx is the
// row's length, as nc_find_index8's).
void ExecMatchReplace8(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.src0.Partitions(), per = in.src0.FreeElements();
  const ScratchFloats& vals = ctx.Read(in.src1, 1);
  ScratchFloats& x = ctx.Read(in.src0, 0);  // replaced in place, then written to dst
  ScratchFloats& idx = ctx.buf[2];
  MatchRows(x, vals, parts, per, true, idx);
  const float imm = static_cast<float>(in.scalar0.imm);
  for (int64_t p = 0; p < parts; ++p) {
    for (int64_t j = 0; j < kTop; ++j) {
      const int64_t i = static_cast<int64_t>(idx[p * kTop + j]);
      if (i < per) x[p * per + i] = imm;
    }
  }
  ctx.Write(in.dst, x);
  if (in.acc.present()) ctx.Write(in.acc, idx);  // after dst: idx may not overlap it (distinct tiles in NKI)
}

SIM_REGISTER_OPCODE(nc_match_replace8, {Opcode::kMatchReplace8, ValidateMatchReplace8, CostRowScan,
                                        ExecMatchReplace8, RowFlops});

// ---- nc_stream_shuffle ----
// "shuffle_mask[i] indicates which input partition the output partition [i]
// copies from within each 32-partition quadrant ... 255 means the output
// tensor in partition [i] will be unmodified" (nki.isa.nc_stream_shuffle
// docs). The model takes the masks that are affine on one window: mask[j] =
// from + j * step for first <= j < first + count, 255 elsewhere (the
// frontend checks a mask is one).
constexpr int64_t kQuadrant = 32;

// The source partition of dst partition i (relative to the accesses), or -1
// when the mask leaves it unmodified.
int64_t ShuffleSource(const InstructionView& in, int64_t i) {
  const int64_t j = i % kQuadrant, first = static_cast<int64_t>(in.scalar0.imm);
  if (j < first || j >= first + static_cast<int64_t>(in.partition_step)) return -1;
  return i - j + static_cast<int64_t>(in.base) + j * static_cast<int64_t>(in.free_step);
}

void ValidateStreamShuffle(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "src");
  if (in.dst.FreeElements() != in.src0.FreeElements()) {
    Fail(k, in, "dst has " + std::to_string(in.dst.FreeElements()) + " elements per partition, src " +
                    std::to_string(in.src0.FreeElements()));
  }
  if (in.scalar0.is_ap) Fail(k, in, "first must be a number");
  if (in.scalar0.imm < 0 || in.partition_step < 0 || in.scalar0.imm + in.partition_step > kQuadrant) {
    Fail(k, in, "first and count must pick lanes within 0..31");
  }
  for (int64_t i = 0; i < in.dst.Partitions(); ++i) {
    const int64_t s = ShuffleSource(in, i);
    const int64_t lane = s - (i - i % kQuadrant);
    if (s >= 0 && (lane < 0 || lane >= kQuadrant || s >= in.src0.Partitions())) {
      Fail(k, in, "dst partition " + std::to_string(i) + " would copy src partition " + std::to_string(s) +
                      ", outside its quadrant of src's " + std::to_string(in.src0.Partitions()) + " partitions");
    }
  }
}

InstrCost CostStreamShuffle(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  double work = static_cast<double>(in.dst.FreeElements());
  if (AnyStridePenalty(k, c.vector.stride_penalty_bytes, {&in.dst, &in.src0})) work *= 2;
  return EngineCost(c.vector, work);
}

void ExecStreamShuffle(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.dst.Partitions(), per = in.dst.FreeElements();
  const ScratchFloats& x = ctx.Read(in.src0, 0);
  ScratchFloats& out = ctx.Read(in.dst, 1);  // partitions the mask skips keep their values
  for (int64_t i = 0; i < parts; ++i) {
    const int64_t s = ShuffleSource(in, i);
    if (s >= 0) std::copy(x.data() + s * per, x.data() + (s + 1) * per, out.data() + i * per);
  }
  ctx.Write(in.dst, out);
}

SIM_REGISTER_OPCODE(nc_stream_shuffle, {Opcode::kStreamShuffle, ValidateStreamShuffle, CostStreamShuffle,
                                        ExecStreamShuffle,
                                        [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

}  // namespace
}  // namespace isa
}  // namespace nsim
