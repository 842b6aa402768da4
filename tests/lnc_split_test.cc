// Ops split over the physical cores of a logical core (LNC=2), at the chip
// level: each graph is split by codegen::SplitRows into one kernel per
// program, launched on cores 0 and 1 of a trn2 chip (one stack, shared).
// Every program computes exactly the rows one core would, so outputs are
// bit-identical to the one-core run (itself checked against the CPU), and
// a large op takes less device time than on one core.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "backend/neuron/codegen/generate.h"
#include "backend/neuron/codegen/program_split.h"
#include "backend/neuron/spmd_programs.h"
#include "sim/base/dtype.h"
#include "sim/config/loader.h"
#include "sim/model/chip.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

constexpr DType kBF = DType::kBF16;
constexpr DType kF = DType::kF32;

TensorDesc C(DType t, std::vector<int64_t> s) { return TensorDesc::Contiguous(t, std::move(s)); }

std::vector<float> Random(size_t n, uint64_t seed, DType t) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = RoundTo(t, d(rng));
  return v;
}

struct ChipRun {
  std::map<std::string, std::vector<float>> outputs;
  Picos device_time = 0;
};

// Runs the graph whole on core 0 (programs = 1) or split over cores 0..P-1.
ChipRun RunOnChip(const Graph& g, const std::map<std::string, std::vector<float>>& inputs, int programs) {
  Chip chip(LoadHardwareConfig("trn2"));
  std::map<std::string, uint64_t> bind;
  uint64_t next = chip.CoreMemoryBase(0);
  auto place = [&](const std::string& name, const TensorDesc& d) {
    bind[name] = next;
    next += (d.Extent() * DTypeSize(d.dtype) + 4095) / 4096 * 4096;
  };
  for (const Node& n : g.nodes()) {
    if (n.kind != OpKind::kInput) continue;
    place(n.name, n.desc);
    const std::vector<float>& v = inputs.at(n.name);
    std::vector<uint8_t> raw(v.size() * DTypeSize(n.desc.dtype));
    for (size_t i = 0; i < v.size(); ++i) StoreElement(n.desc.dtype, &raw[i * DTypeSize(n.desc.dtype)], v[i]);
    chip.hbm().Write(bind[n.name], raw.data(), raw.size());
  }
  for (const GraphOutput& o : g.outputs()) place(o.name, o.desc);

  std::vector<Kernel> kernels;
  if (programs == 1) {
    kernels.push_back(GenerateKernel(g, chip.config()).kernel);
  } else {
    std::string why;
    const auto split = SplitRows(g, programs, &why);
    EXPECT_TRUE(split.has_value()) << why;
    if (!split) return {};
    for (const Graph& p : split->programs) kernels.push_back(GenerateKernel(p, chip.config()).kernel);
    std::set<std::string> bound;
    for (const auto& [name, addr] : bind) bound.insert(name);
    MakeProgramsAlike(kernels, bound);
  }
  std::vector<std::shared_ptr<const LoadedKernel>> loaded;
  for (const Kernel& k : kernels) loaded.push_back(chip.Load(k));
  const GridResult r = chip.Launch(loaded, bind);
  ChipRun run;
  run.device_time = r.device_time;
  for (const GraphOutput& o : g.outputs()) {
    std::vector<uint8_t> raw(o.desc.Extent() * DTypeSize(o.desc.dtype));
    chip.hbm().Read(bind[o.name], raw.data(), raw.size());
    std::vector<float>& v = run.outputs[o.name];
    for (size_t i = 0; i < raw.size() / DTypeSize(o.desc.dtype); ++i) {
      v.push_back(LoadElement(o.desc.dtype, &raw[i * DTypeSize(o.desc.dtype)]));
    }
  }
  return run;
}

// RMSNorm op by op (each op rounds to bf16, as eager PyTorch does).
Graph RmsNormGraph(int64_t rows, int64_t n) {
  Graph g;
  const ValueId x = g.Input("x", C(kBF, {rows, n}));
  const ValueId w = g.Input("w", C(kBF, {n}));
  const ValueId ms = g.RowReduce(OpKind::kRowMean, g.Unary(OpKind::kSquare, x, kBF), kBF);
  const ValueId r = g.Unary(OpKind::kRsqrt, g.Binary(OpKind::kAdd, ms, g.Constant(1e-6), kBF), kBF);
  g.Output(g.Binary(OpKind::kMul, g.Binary(OpKind::kMul, x, r, kBF), w, kBF), "y", C(kBF, {rows, n}));
  return g;
}

std::vector<float> RmsNormReference(const std::vector<float>& x, const std::vector<float>& w, int64_t rows,
                                    int64_t n) {
  std::vector<float> y(rows * n);
  for (int64_t i = 0; i < rows; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += RoundTo(kBF, x[i * n + j] * x[i * n + j]);
    const float ms = RoundTo(kBF, static_cast<float>(sum / n));
    const float r = RoundTo(kBF, 1.0f / std::sqrt(RoundTo(kBF, ms + 1e-6f)));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = RoundTo(kBF, RoundTo(kBF, x[i * n + j] * r) * w[j]);
  }
  return y;
}

TEST(LncSplit, RmsNormSplitsRowsOverTwoCoresWithCpuValues) {
  const int64_t rows = 512, n = 2048;
  const Graph g = RmsNormGraph(rows, n);
  const std::map<std::string, std::vector<float>> in = {{"x", Random(rows * n, 1, kBF)},
                                                       {"w", Random(n, 2, kBF)}};
  const ChipRun one = RunOnChip(g, in, 1), two = RunOnChip(g, in, 2);
  EXPECT_EQ(two.outputs.at("y"), one.outputs.at("y"));  // the same rows, the same roundings
  const std::vector<float> want = RmsNormReference(in.at("x"), in.at("w"), rows, n);
  const std::vector<float>& got = two.outputs.at("y");
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {  // the row sum is in fp32 on the device: one bf16 ulp
    if (std::fabs(got[i] - want[i]) > 1.0f / 128 * std::max(1.0f, std::fabs(want[i])) && bad++ < 5) {
      ADD_FAILURE() << "y[" << i << "] = " << got[i] << ", CPU " << want[i];
    }
  }
  // Two cores each stream half the rows: both cores' DMA engines share the
  // stack's 750 B/ns (2 x 368 B/ns fits), so the kernel takes well under the
  // one-core time but more than half of it (launch and fixed costs remain).
  std::cout << "rmsnorm [512, 2048] bf16 on trn2: one core " << one.device_time << " ps, two cores "
            << two.device_time << " ps\n";
  EXPECT_LT(two.device_time, one.device_time * 3 / 4) << two.device_time << " vs " << one.device_time;
  EXPECT_GT(two.device_time, one.device_time / 2);
}

TEST(LncSplit, SoftmaxLayerNormStatsAndMatmulSplit) {
  // layer-norm-like with a [R] (keepdim=False) output, a broadcast weight, a
  // matmul along M: every output bit-identical to the one-core run.
  const int64_t rows = 256, n = 512, m = 128;
  Graph g;
  const ValueId x = g.Input("x", C(kBF, {rows, n}));
  const ValueId w = g.Input("w", C(kBF, {n, m}));
  const ValueId mean = g.RowReduce(OpKind::kRowMean, x, kF);
  const ValueId d = g.Binary(OpKind::kSub, x, mean, kF);
  g.Output(g.Cast(g.Unary(OpKind::kExp, d, kF), kBF), "e", C(kBF, {rows, n}));
  g.Output(g.View(mean, {rows}), "mean", C(kF, {rows}));
  g.Output(g.Matmul(x, w, kBF), "h", C(kBF, {rows, m}));
  const std::map<std::string, std::vector<float>> in = {{"x", Random(rows * n, 3, kBF)},
                                                       {"w", Random(n * m, 4, kBF)}};
  const ChipRun one = RunOnChip(g, in, 1), two = RunOnChip(g, in, 2);
  for (const char* o : {"e", "mean", "h"}) EXPECT_EQ(two.outputs.at(o), one.outputs.at(o)) << o;
}

TEST(LncSplit, UnevenRowsAndAStridedInput) {
  // 5 rows over 2 programs (3 + 2); x read transposed from a [n, 5] tensor.
  const int64_t rows = 5, n = 64;
  Graph g;
  const ValueId x = g.Input("x", TensorDesc{kBF, {rows, n}, {1, rows}, 0});
  g.Output(g.Unary(OpKind::kExp, x, kBF), "y", C(kBF, {rows, n}));
  const std::map<std::string, std::vector<float>> in = {{"x", Random(rows * n, 5, kBF)}};
  EXPECT_EQ(RunOnChip(g, in, 2).outputs.at("y"), RunOnChip(g, in, 1).outputs.at("y"));
}

TEST(LncSplit, WhatDoesNotSplitSaysWhy) {
  Graph g;  // a full reduction to one value: no rows to share
  const ValueId x = g.Input("x", C(kBF, {1, 256}));
  g.Output(g.RowReduce(OpKind::kRowSum, x, kF), "s", C(kF, {1, 1}));
  std::string why;
  EXPECT_FALSE(SplitRows(g, 2, &why).has_value());
  EXPECT_NE(why.find("rows"), std::string::npos) << why;

  Graph r;  // [2, 256] -> row sums: splits, one row each
  const ValueId y = r.Input("x", C(kBF, {2, 256}));
  r.Output(r.RowReduce(OpKind::kRowSum, y, kF), "s", C(kF, {2, 1}));
  const auto split = SplitRows(r, 2);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->programs[1].node(0).desc.offset, 256);
  EXPECT_EQ(split->programs[1].outputs()[0].desc.offset, 1);
}

TEST(LncSplit, BatchedMatmulSplitsItsBatchAndKeepsAPlainWeightWhole) {
  // [4, 8, 32] @ [32, 16]: program 1 takes batches 2..3 of x, all of w.
  Graph g;
  const ValueId x = g.Input("x", C(kBF, {4, 8, 32}));
  const ValueId w = g.Input("w", C(kBF, {32, 16}));
  g.Output(g.Matmul(x, w, kBF), "h", C(kBF, {4, 8, 16}));
  const auto split = SplitRows(g, 2);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->axis, 0);
  const Graph& p1 = split->programs[1];
  EXPECT_EQ(p1.node(x).desc.sizes, (std::vector<int64_t>{2, 8, 32}));
  EXPECT_EQ(p1.node(x).desc.offset, 2 * 8 * 32);
  EXPECT_EQ(p1.node(w).desc.sizes, (std::vector<int64_t>{32, 16}));
  EXPECT_EQ(p1.node(w).desc.offset, 0);
  EXPECT_EQ(p1.outputs()[0].desc.offset, 2 * 8 * 16);

  // [4, 8, 32] @ [4, 32, 16]: a batched weight is split with x.
  Graph b;
  const ValueId bx = b.Input("x", C(kBF, {4, 8, 32}));
  const ValueId bw = b.Input("w", C(kBF, {4, 32, 16}));
  b.Output(b.Matmul(bx, bw, kBF), "h", C(kBF, {4, 8, 16}));
  const auto s = SplitRows(b, 2);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->programs[1].node(bw).desc.sizes, (std::vector<int64_t>{2, 32, 16}));
  EXPECT_EQ(s->programs[1].node(bw).desc.offset, 2 * 32 * 16);
}

TEST(LncSplit, ShareOfIsBalanced) {
  EXPECT_EQ(ShareOf(5, 0, 2).count, 2);
  EXPECT_EQ(ShareOf(5, 1, 2).first, 2);
  EXPECT_EQ(ShareOf(5, 1, 2).count, 3);
  EXPECT_EQ(ShareOf(8, 3, 4).first, 6);
}

}  // namespace
}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
