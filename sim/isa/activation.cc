// ScalarE activation: dst = func(src * scale + bias), with an optional
// add-reduction along the free dims into a [P,1] accumulator (S1, S11).
#include <cmath>

#include "sim/isa/common.h"
#include "sim/isa/value_kernels.h"

namespace nsim {
namespace isa {
namespace {

// Activation-table sets (alu_act_tables.h). Functions in set 0 are
// available in every table and never force a reload.
int TableSet(ActFunc f) {
  switch (f) {
#define NSIM_ACT_SET(e, name, nl_name, table_set, value) \
  case ActFunc::e: return table_set;
    NSIM_ACT_FUNC_TABLE(NSIM_ACT_SET)
#undef NSIM_ACT_SET
  }
  return 0;
}

void ValidateActivation(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "src");
  RequireSameShape(k, in, in.dst, "dst", in.src0, "src");
  RequireColumn(k, in, in.scalar0, "scale", in.src0);
  RequireColumn(k, in, in.scalar1, "bias", in.src0);
  if (in.acc.present()) {
    RequireOnChip(k, in, in.acc, "acc");
    Scalar as_scalar;
    as_scalar.is_ap = true;
    as_scalar.ap = in.acc;
    RequireColumn(k, in, as_scalar, "acc", in.src0);
  }
}

InstrCost CostActivation(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  const ScalarEngineParams& s = c.scalar;
  // S3 names copy-like functions (identity, relu); abs and sign are assumed not to have the 2x mode.
  const bool copy_like = in.func == ActFunc::kIdentity || in.func == ActFunc::kRelu;
  const bool sixteen = IsFloat16Bit(TypeOf(k, in.src0)) && IsFloat16Bit(TypeOf(k, in.dst));
  const double perf = (copy_like && sixteen) ? s.perf_mode_16bit : 1.0;  // S3: v4 2x for 16-bit copies
  double work = static_cast<double>(in.src0.FreeElements()) / perf;
  if (StridePenalty(k, in.src0, s.stride_penalty_bytes) || StridePenalty(k, in.dst, s.stride_penalty_bytes)) work *= 2;
  // S11 activation_reduce: max(MIN_II, N) + MIN_II; S1 ActReadAccumulator ~64 cycles.
  const double extra = in.acc.present() ? static_cast<double>(s.accumulate_cycles) : 0.0;
  InstrCost cost = EngineCost(s, work + extra);
  cost.table_set = TableSet(in.func);
  cost.perf_mode = perf > 1.0;
  return cost;
}

void ExecActivation(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.src0.Partitions(), per = in.src0.FreeElements();
  const ScalarColumn scale = ScalarPerPartition(ctx, in.scalar0, 1);
  const ScalarColumn bias = ScalarPerPartition(ctx, in.scalar1, 2);
  ScratchFloats& sums = ctx.buf[3];
  if (in.acc.present()) sums.resize(static_cast<size_t>(parts));
  ElementwiseRows<1>(ctx, in.dst, {&in.src0}, [&](float* const* rows, int64_t first, int64_t n) {
    for (int64_t p = first; p < first + n; ++p) {
      float* row = rows[0] + (p - first) * per;
      ActivateRow(in.func, row, scale[p], bias[p], per);
      if (in.acc.present()) sums[p] = SumRow(row, per);  // the fp32 results, before dst's rounding
    }
  });
  if (in.acc.present()) ctx.Write(in.acc, sums);  // after dst, as before: acc may overlap it
}

SIM_REGISTER_OPCODE(activation, {Opcode::kActivation,
                                 ValidateActivation, CostActivation, ExecActivation,
                                 [](const Kernel&, const InstructionView& in) { return 2 * in.dst.NumElements(); }});

}  // namespace
}  // namespace isa
}  // namespace nsim
