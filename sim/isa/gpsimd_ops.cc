// GpSimd instructions: iota, affine_select, nonzero_with_count and the
// cross-partition reduce.
// Costs follow S11: GPSIMD_START plus per-element cycles from the config
// (S11 "iota / affine_select: 150 + N").
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "sim/isa/common.h"
#include "sim/isa/value_kernels.h"

namespace nsim {
namespace isa {
namespace {

void ValidateIota(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
}

InstrCost CostIota(const Kernel&, const InstructionView& in, const HardwareConfig& c) {
  const double n = static_cast<double>(in.dst.FreeElements());
  return EngineCost(c.gpsimd, static_cast<double>(c.gpsimd.start_cycles) + c.gpsimd.iota_cycles_per_elem * n);
}

// Partition p's values: (base + p * partition_step) + i * free_step in
// double, rounded to fp32 (value_kernels.h).
void ExecIota(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.dst.Partitions(), per = in.dst.FreeElements();  // per fits a partition's bytes
  int64_t stride = 0;
  if (float* rows = F32Rows(ctx, in.dst, &stride)) {  // f32 dst: written in place
    IotaRows(in.base, in.partition_step, in.free_step, parts, static_cast<int32_t>(per), rows, stride);
    return;
  }
  ScratchFloats& v = ctx.buf[0];
  v.resize(static_cast<size_t>(parts * per));
  IotaRows(in.base, in.partition_step, in.free_step, parts, static_cast<int32_t>(per), v.data(), per);
  ctx.Write(in.dst, v);
}

SIM_REGISTER_OPCODE(iota, {Opcode::kIota, ValidateIota, CostIota,
                           ExecIota, [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

// ---- affine_select ----
void ValidateAffineSelect(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "on_true");
  RequireSameShape(k, in, in.dst, "dst", in.src0, "on_true");
  if (!IsArithmetic(in.alu0)) Fail(k, in, "needs op= (the comparison of the affine value with 0)");
  if (in.scalar0.is_ap) Fail(k, in, "value (on_false) must be an immediate");
}

// The affine value of each element is iota's (value_kernels.h), compared
// with 0 by the ALU op: non-zero selects src0, zero the fill value.
void ExecAffineSelect(ExecContext& ctx, const InstructionView& in) {
  const int64_t per = in.src0.FreeElements();
  const float fill = static_cast<float>(in.scalar0.imm);
  ScratchFloats& affine = ctx.buf[2];
  ElementwiseRows<1>(ctx, in.dst, {&in.src0}, [&](float* const* rows, int64_t first, int64_t n) {
    affine.resize(static_cast<size_t>(n * per));
    IotaRows(in.base + static_cast<double>(first) * in.partition_step, in.partition_step, in.free_step, n,
             static_cast<int32_t>(per), affine.data(), per);
    AluScalar(in.alu0, affine.data(), 0.0f, n * per);
    for (int64_t i = 0; i < n * per; ++i) {
      if (affine[i] == 0.0f) rows[0][i] = fill;
    }
  });
}

SIM_REGISTER_OPCODE(affine_select, {Opcode::kAffineSelect, ValidateAffineSelect, CostIota, ExecAffineSelect,
                                    [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

// ---- nonzero_with_count ----
// "Each of the eight GpSimd cores connects to 16 contiguous SBUF partitions
// ... each GpSimd core reads from and writes to its 0-th partition only"
// (nki.isa.nonzero_with_count docs, S11b): the instruction's definition.
constexpr int64_t kPartitionsPerGpSimdCore = 16;

bool CoreZeroPartition(const AccessPattern& ap, int64_t p) {
  return (ap.partition_start + p) % kPartitionsPerGpSimdCore == 0;
}

void ValidateNonzeroWithCount(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "src");
  if (in.dst.Partitions() != in.src0.Partitions() || in.dst.partition_start != in.src0.partition_start ||
      in.dst.FreeElements() != in.src0.FreeElements() + 1) {
    Fail(k, in, "dst " + OperandName(k, in.dst) + " must be [" + std::to_string(in.src0.Partitions()) + ", " +
                    std::to_string(in.src0.FreeElements() + 1) + "] on src's partitions (the indices, then the " +
                    "count), got [" + std::to_string(in.dst.Partitions()) + ", " +
                    std::to_string(in.dst.FreeElements()) + "]");
  }
  if (in.scalar0.is_ap) Fail(k, in, "padding must be a number");
}

// Streams each read partition once: GPSIMD_START + N x gpsimd.nonzero_per_elem
// (no documented cost; config).
InstrCost CostNonzeroWithCount(const Kernel&, const InstructionView& in, const HardwareConfig& c) {
  const double n = static_cast<double>(in.src0.FreeElements());
  return EngineCost(c.gpsimd, static_cast<double>(c.gpsimd.start_cycles) + c.gpsimd.nonzero_cycles_per_elem * n);
}

// dst keeps its values on partitions no core reads (read, then written back).
void ExecNonzeroWithCount(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.src0.Partitions(), per = in.src0.FreeElements();
  const ScratchFloats& x = ctx.Read(in.src0, 0);
  ScratchFloats& out = ctx.Read(in.dst, 1);
  const float pad = static_cast<float>(in.scalar0.imm);
  for (int64_t p = 0; p < parts; ++p) {
    if (!CoreZeroPartition(in.src0, p)) continue;
    float* row = out.data() + p * (per + 1);
    int64_t n = 0;
    for (int64_t i = 0; i < per; ++i) {
      if (x[p * per + i] != 0.0f) row[n++] = static_cast<float>(in.base + static_cast<double>(i));
    }
    std::fill(row + n, row + per, pad);
    row[per] = static_cast<float>(n);
  }
  ctx.Write(in.dst, out);
}

SIM_REGISTER_OPCODE(nonzero_with_count, {Opcode::kNonzeroWithCount, ValidateNonzeroWithCount, CostNonzeroWithCount,
                                         ExecNonzeroWithCount,
                                         [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

// ---- nc_n_gather ----
void ValidateNGather(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  for (const auto& [ap, role] : {std::pair{&in.dst, "dst"}, {&in.src0, "data"}, {&in.src1, "indices"}}) {
    if (!InSpace(k, *ap, MemSpace::kSbuf)) Fail(k, in, std::string(role) + " must be in SBUF (GpSimd cannot access PSUM)");
  }
  RequireSameShape(k, in, in.dst, "dst", in.src1, "indices");
  if (in.src0.Partitions() != in.src1.Partitions()) {
    Fail(k, in, "data has " + std::to_string(in.src0.Partitions()) + " partitions, indices " +
                    std::to_string(in.src1.Partitions()));
  }
}

// "n groups of instructions in the underlying ISA, where n =
// ceil(elems_per_partition / 512)" (nki.isa.nc_n_gather docs, S11b): a
// GPSIMD_START per group, plus gpsimd.gather_per_elem per gathered element
// (no documented rate; config).
constexpr double kGatherGroupElems = 512;

InstrCost CostNGather(const Kernel&, const InstructionView& in, const HardwareConfig& c) {
  const double n = static_cast<double>(in.dst.FreeElements());
  const double groups = std::max(1.0, std::ceil(n / kGatherGroupElems));
  return EngineCost(c.gpsimd, groups * static_cast<double>(c.gpsimd.start_cycles) + c.gpsimd.gather_cycles_per_elem * n);
}

// An index outside the partition's data is an error at the instruction (the
// hardware returns garbage, nki.language.gather_flattened docs).
void ExecNGather(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.dst.Partitions(), per = in.dst.FreeElements(), size = in.src0.FreeElements();
  const ScratchFloats& data = ctx.Read(in.src0, 0);
  const ScratchFloats& idx = ctx.Read(in.src1, 1);
  ScratchFloats& out = ctx.buf[2];
  out.resize(static_cast<size_t>(parts * per));
  for (int64_t p = 0; p < parts; ++p) {
    for (int64_t j = 0; j < per; ++j) {
      const float i = idx[p * per + j];
      if (!(i >= 0 && i < static_cast<float>(size))) {
        Fail(ctx.kernel, in, "index " + std::to_string(static_cast<int64_t>(i)) + " (partition " +
                                 std::to_string(p) + ") is outside data's " + std::to_string(size) +
                                 " elements per partition");
      }
      out[p * per + j] = data[p * size + static_cast<int64_t>(i)];
    }
  }
  ctx.Write(in.dst, out);
}

SIM_REGISTER_OPCODE(nc_n_gather, {Opcode::kNGather, ValidateNGather, CostNGather, ExecNGather,
                                  [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

void ValidatePartitionReduce(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "src");
  if (in.dst.FreeElements() != in.src0.FreeElements()) {
    Fail(k, in, "dst has " + std::to_string(in.dst.FreeElements()) + " elements per partition, src has " +
                    std::to_string(in.src0.FreeElements()));
  }
  const int64_t want = in.broadcast ? in.src0.Partitions() : 1;
  if (in.dst.Partitions() != want) {
    Fail(k, in, "dst must span " + std::to_string(want) + " partition(s)" +
                    (in.broadcast ? " (broadcast=true writes every source partition)" : "") + ", got " +
                    std::to_string(in.dst.Partitions()));
  }
  if (in.reduce == ReduceOp::kMean) Fail(k, in, "op=mean is not supported across partitions (use sum)");
}

InstrCost CostPartitionReduce(const Kernel&, const InstructionView& in, const HardwareConfig& c) {
  const double n = static_cast<double>(in.src0.FreeElements());
  return EngineCost(c.gpsimd, static_cast<double>(c.gpsimd.start_cycles) + c.gpsimd.partition_reduce_cycles_per_elem * n);
}

void ExecPartitionReduce(ExecContext& ctx, const InstructionView& in) {
  const ScratchFloats& x = ctx.Read(in.src0, 0);
  const int64_t parts = in.src0.Partitions(), per = in.src0.FreeElements();
  ScratchFloats& out = ctx.buf[1];
  out.assign(x.begin(), x.begin() + per);
  for (int64_t p = 1; p < parts; ++p) {
    for (int64_t i = 0; i < per; ++i) {
      const float v = x[p * per + i];
      float& o = out[i];
      o = in.reduce == ReduceOp::kMax   ? alu_values::Maximum(o, v)
          : in.reduce == ReduceOp::kMin ? alu_values::Minimum(o, v)
                                        : o + v;
    }
  }
  if (in.broadcast) {
    out.resize(static_cast<size_t>(parts * per));
    for (int64_t p = 1; p < parts; ++p) std::copy(out.begin(), out.begin() + per, out.begin() + p * per);
  }
  ctx.Write(in.dst, out);
}

SIM_REGISTER_OPCODE(partition_reduce, {Opcode::kPartitionReduce, ValidatePartitionReduce, CostPartitionReduce,
                                       ExecPartitionReduce,
                                       [](const Kernel&, const InstructionView& in) { return in.src0.NumElements(); }});

}  // namespace
}  // namespace isa
}  // namespace nsim
