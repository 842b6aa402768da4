// range_select (VectorE): each element's free index + range_start compared
// with two per-partition bounds; where both comparisons hold the element of
// on_true is kept, else on_false_value; optionally the row's reduction into
// acc (nki.isa.range_select, v2.32: "compares its free dimension index +
// range_start against bound0 and bound1 ... If both comparisons evaluate to
// True, copies the element to the output; otherwise uses on_false_value.
// Additionally performs a reduction operation"). Cost max(MIN_II, N) (S11
// "dropout, range_select, nc_stream_shuffle ...: max(MIN_II, N)"); the
// reduction adds nothing (S11 gives range_select one formula).
#include <algorithm>
#include <string>
#include <vector>

#include "sim/isa/common.h"
#include "sim/isa/value_kernels.h"

namespace nsim {
namespace isa {
namespace {

void ValidateRangeSelect(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "on_true");
  RequireSameShape(k, in, in.dst, "dst", in.src0, "on_true");
  if (!IsArithmetic(in.alu0) || !IsArithmetic(in.alu1)) Fail(k, in, "needs op0= and op1= (the comparisons)");
  RequireColumn(k, in, in.scalar0, "bound0", in.src0);
  RequireColumn(k, in, in.scalar1, "bound1", in.src0);
  if (in.acc.present()) {
    RequireOnChip(k, in, in.acc, "acc");
    if (in.reduce == ReduceOp::kMean) Fail(k, in, "reduce=mean is not an accumulate op (sum, max or min)");
    Scalar as_column;
    as_column.is_ap = true;
    as_column.ap = in.acc;
    RequireColumn(k, in, as_column, "acc", in.src0);
  }
}

InstrCost CostRangeSelect(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  double work = static_cast<double>(in.src0.FreeElements());
  if (AnyStridePenalty(k, c.vector.stride_penalty_bytes, {&in.dst, &in.src0})) work *= 2;
  return EngineCost(c.vector, work);
}

// The free index is the element's position in the partition's row (the free
// dims flattened row-major; NKI's kernels pass [P, F] tiles), in fp32 like
// the bounds. The reduction is over the fp32 results, before dst's rounding
// (as tensor_scalar_reduce's).
void ExecRangeSelect(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.src0.Partitions(), per = in.src0.FreeElements();
  const ScalarColumn b0 = ScalarPerPartition(ctx, in.scalar0, 2);
  const ScalarColumn b1 = ScalarPerPartition(ctx, in.scalar1, 3);
  const float fill = static_cast<float>(in.free_step);
  ScratchFloats& cmp = ctx.buf[1];  // the two comparisons' rows (ElementwiseRows<1> uses buf[0] only)
  cmp.resize(static_cast<size_t>(2 * per));
  float* const c0 = cmp.data();
  float* const c1 = cmp.data() + per;
  std::vector<float> acc(in.acc.present() ? static_cast<size_t>(parts) : 0);
  ElementwiseRows<1>(ctx, in.dst, {&in.src0}, [&](float* const* rows, int64_t first, int64_t n) {
    for (int64_t p = first; p < first + n; ++p) {
      IotaRows(in.base, 0, 1, 1, static_cast<int32_t>(per), c0, per);
      std::copy(c0, c0 + per, c1);
      AluScalar(in.alu0, c0, b0[p], per);
      AluScalar(in.alu1, c1, b1[p], per);
      float* row = rows[0] + (p - first) * per;
      for (int64_t i = 0; i < per; ++i) {
        if (c0[i] == 0.0f || c1[i] == 0.0f) row[i] = fill;
      }
      if (in.acc.present()) ReduceRows(in.reduce, row, 1, per, &acc[p]);
    }
  });
  if (in.acc.present()) {
    cmp.resize(acc.size());  // the comparisons' rows are done with: the reductions go out through them
    std::copy(acc.begin(), acc.end(), cmp.data());
    ctx.Write(in.acc, cmp);
  }
}

SIM_REGISTER_OPCODE(range_select, {Opcode::kRangeSelect, ValidateRangeSelect, CostRangeSelect, ExecRangeSelect,
                                   [](const Kernel&, const InstructionView&) { return int64_t{0}; }});

}  // namespace
}  // namespace isa
}  // namespace nsim
