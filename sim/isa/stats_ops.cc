// VectorE statistics: bn_stats and bn_aggr, costed by S11
// (trainium-architecture.md, VectorE table): bn_stats "max(MIN_II, N),
// N <= 512" (the limit: `vector.bn_stats_fmax`), bn_aggr
// "max(MIN_II, 13*(N/3))" (`vector.bn_aggr_factor`, 13/3 per element).
// Every II is at least MIN_II (EngineCost).
//
// Values (nki.isa.bn_stats / bn_aggr docs): bn_stats writes per partition
// (count, mean, variance * count) of the even elements, then the same of the
// odd ones; bn_aggr merges such triples (Chan et al.'s pairwise update) into
// (mean, variance). Accumulated in double, rounded once to fp32 (the engine
// computes in fp32; the sums of these sizes are exact either way to well
// within fp32's rounding).
#include <string>

#include "sim/isa/common.h"

namespace nsim {
namespace isa {
namespace {

constexpr int64_t kStatsOut = 6;   // bn_stats: two (count, mean, variance * count) triples
constexpr int64_t kTriple = 3;     // bn_aggr reads triples
constexpr int64_t kAggrOut = 2;    // bn_aggr: mean, variance

void RequireFree(const Kernel& k, const InstructionView& in, const AccessPattern& ap, const char* role,
                 const AccessPattern& like, int64_t free) {
  if (ap.Partitions() != like.Partitions() || ap.FreeElements() != free) {
    Fail(k, in, std::string(role) + " " + OperandName(k, ap) + " must be [" + std::to_string(like.Partitions()) +
                    ", " + std::to_string(free) + "], got [" + std::to_string(ap.Partitions()) + ", " +
                    std::to_string(ap.FreeElements()) + "]");
  }
}

void ValidateBnStats(const Kernel& k, const InstructionView& in, const HardwareConfig& c) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "data");
  RequireFree(k, in, in.dst, "dst", in.src0, kStatsOut);
  if (in.src0.FreeElements() > c.vector.bn_stats_fmax) {
    Fail(k, in, "data " + OperandName(k, in.src0) + " has " + std::to_string(in.src0.FreeElements()) +
                    " elements per partition; bn_stats takes at most " + std::to_string(c.vector.bn_stats_fmax) +
                    " (vector.bn_stats_fmax): split it and aggregate the results with bn_aggr");
  }
}

InstrCost CostBnStats(const Kernel&, const InstructionView& in, const HardwareConfig& c) {
  return EngineCost(c.vector, static_cast<double>(in.src0.FreeElements()));
}

// (count, mean, sum of squared deviations) of x[first], x[first + 2], ...
void Moments(const float* x, int64_t n, int64_t first, float* out) {
  double count = 0, sum = 0;
  for (int64_t i = first; i < n; i += 2) {
    sum += x[i];
    count += 1;
  }
  const double mean = count > 0 ? sum / count : 0;
  double m2 = 0;
  for (int64_t i = first; i < n; i += 2) m2 += (x[i] - mean) * (x[i] - mean);
  out[0] = static_cast<float>(count);
  out[1] = static_cast<float>(mean);
  out[2] = static_cast<float>(m2);
}

void ExecBnStats(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.src0.Partitions(), per = in.src0.FreeElements();
  const ScratchFloats& x = ctx.Read(in.src0, 0);
  ScratchFloats& out = ctx.buf[1];
  out.resize(static_cast<size_t>(parts * kStatsOut));
  for (int64_t p = 0; p < parts; ++p) {
    Moments(x.data() + p * per, per, 0, out.data() + p * kStatsOut);
    Moments(x.data() + p * per, per, 1, out.data() + p * kStatsOut + kTriple);
  }
  ctx.Write(in.dst, out);
}

int64_t RowFlops(const Kernel&, const InstructionView& in) { return in.src0.NumElements(); }

SIM_REGISTER_OPCODE(bn_stats, {Opcode::kBnStats, ValidateBnStats, CostBnStats, ExecBnStats, RowFlops});

void ValidateBnAggr(const Kernel& k, const InstructionView& in, const HardwareConfig&) {
  RequireOnChip(k, in, in.dst, "dst");
  RequireOnChip(k, in, in.src0, "data");
  RequireFree(k, in, in.dst, "dst", in.src0, kAggrOut);
  if (in.src0.FreeElements() % kTriple != 0) {
    Fail(k, in, "data " + OperandName(k, in.src0) + " has " + std::to_string(in.src0.FreeElements()) +
                    " elements per partition; bn_aggr reads (count, mean, variance * count) triples");
  }
}

InstrCost CostBnAggr(const Kernel&, const InstructionView& in, const HardwareConfig& c) {
  return EngineCost(c.vector, c.vector.bn_aggr_factor * static_cast<double>(in.src0.FreeElements()));
}

void ExecBnAggr(ExecContext& ctx, const InstructionView& in) {
  const int64_t parts = in.src0.Partitions(), per = in.src0.FreeElements();
  const ScratchFloats& x = ctx.Read(in.src0, 0);
  ScratchFloats& out = ctx.buf[1];
  out.resize(static_cast<size_t>(parts * kAggrOut));
  for (int64_t p = 0; p < parts; ++p) {
    const float* row = x.data() + p * per;
    double count = 0, weighted = 0;
    for (int64_t t = 0; t < per; t += kTriple) {
      count += row[t];
      weighted += static_cast<double>(row[t]) * row[t + 1];
    }
    const double mean = count > 0 ? weighted / count : 0;
    double m2 = 0;
    for (int64_t t = 0; t < per; t += kTriple) {
      const double d = row[t + 1] - mean;
      m2 += row[t + 2] + row[t] * d * d;
    }
    out[p * kAggrOut] = static_cast<float>(mean);
    out[p * kAggrOut + 1] = static_cast<float>(count > 0 ? m2 / count : 0);
  }
  ctx.Write(in.dst, out);
}

SIM_REGISTER_OPCODE(bn_aggr, {Opcode::kBnAggr, ValidateBnAggr, CostBnAggr, ExecBnAggr, RowFlops});

}  // namespace
}  // namespace isa
}  // namespace nsim
