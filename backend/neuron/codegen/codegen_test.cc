// The codegen on its own: graphs -> one kernel -> the simulated NeuronCore,
// checked against host computations that round where eager PyTorch rounds.
#include <cmath>

#include <Eigen/Core>
#include <gtest/gtest.h>

#include "backend/neuron/codegen/codegen_testing.h"
#include "sim/base/error.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

using testing::R;
using testing::Random;
using testing::RunOnDevice;
constexpr DType kBF = DType::kBF16;
constexpr DType kF = DType::kF32;

TensorDesc C(DType t, std::vector<int64_t> s) { return TensorDesc::Contiguous(t, std::move(s)); }

// |a - b| within `ulps` units of b's bf16 spacing (or a small absolute floor).
void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float rel, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float tol = rel * std::max(1.0f, std::fabs(want[i]));
    if (!(std::fabs(got[i] - want[i]) <= tol) && bad++ < 5) {
      ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << " want " << want[i];
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

TEST(Codegen, ElementwiseWithBroadcastScalarAndTransposedView) {
  // y = (a + 2 * b.t()) * w - s, a [64, 96] bf16, b [96, 64] viewed transposed,
  // w [96] broadcast over rows, s a 0-dim f32 "wrapped number" in HBM.
  Graph g;
  const ValueId a = g.Input("a", C(kBF, {64, 96}));
  const ValueId bt = g.Input("b", TensorDesc{kBF, {64, 96}, {1, 64}, 0});
  const ValueId w = g.Input("w", C(kBF, {96}));
  const ValueId s = g.Input("s", C(kF, {}));
  const ValueId sum = g.Binary(OpKind::kAdd, a, bt, kBF, 2.0);
  const ValueId prod = g.Binary(OpKind::kMul, sum, w, kBF);
  g.Output(g.Binary(OpKind::kSub, prod, s, kBF), "y", C(kBF, {64, 96}));
  std::map<std::string, std::vector<float>> in = {
      {"a", Random(64 * 96, 1, kBF)}, {"b", Random(64 * 96, 2, kBF)}, {"w", Random(96, 3, kBF)}, {"s", {0.25f}}};
  const auto run = RunOnDevice(g, in);
  std::vector<float> want(64 * 96);
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < 96; ++j) {
      const float t = R(kBF, in["a"][i * 96 + j] + 2.0f * in["b"][j * 64 + i]);
      want[i * 96 + j] = R(kBF, R(kBF, t * in["w"][j]) - 0.25f);
    }
  }
  ExpectNear(run.outputs.at("y"), want, 0.0f, "y");  // same roundings: exact
}

TEST(Codegen, RmsNormGraphRoundsLikeEagerAndIsOneStage) {
  Graph g;
  const ValueId x = g.Input("x", C(kBF, {4, 512}));
  const ValueId w = g.Input("w", C(kBF, {512}));
  const ValueId sq = g.Binary(OpKind::kMul, x, x, kBF);
  const ValueId ms = g.RowReduce(OpKind::kRowMean, sq, kBF);
  const ValueId r = g.Unary(OpKind::kRsqrt, g.Binary(OpKind::kAdd, ms, g.Constant(1e-6), kBF), kBF);
  g.Output(g.Binary(OpKind::kMul, g.Binary(OpKind::kMul, x, r, kBF), w, kBF), "y", C(kBF, {4, 512}));
  std::map<std::string, std::vector<float>> in = {{"x", Random(4 * 512, 4, kBF, 2)}, {"w", Random(512, 5, kBF)}};
  const auto run = RunOnDevice(g, in);
  std::vector<float> want(4 * 512);
  for (int i = 0; i < 4; ++i) {
    float acc = 0;
    for (int j = 0; j < 512; ++j) acc += R(kBF, in["x"][i * 512 + j] * in["x"][i * 512 + j]);
    const float rs = R(kBF, 1.0f / std::sqrt(R(kBF, R(kBF, acc / 512) + 1e-6f)));
    for (int j = 0; j < 512; ++j) want[i * 512 + j] = R(kBF, R(kBF, in["x"][i * 512 + j] * rs) * in["w"][j]);
  }
  ExpectNear(run.outputs.at("y"), want, 0.0f, "y");
  EXPECT_EQ(run.kernel.kernel.stream(EngineId::kTensor).size(), 0u);
}

TEST(Codegen, SoftmaxInFp32FusesTheSumIntoTheExpActivation) {
  Graph g;
  const ValueId x = g.Input("x", C(kBF, {200, 300}));
  const ValueId m = g.RowReduce(OpKind::kRowAmax, x, kF);
  const ValueId e = g.Unary(OpKind::kExp, g.Binary(OpKind::kSub, x, m, kF), kF);
  const ValueId s = g.RowReduce(OpKind::kRowSum, e, kF);
  g.Output(g.Binary(OpKind::kDiv, e, s, kBF), "y", C(kBF, {200, 300}));
  std::map<std::string, std::vector<float>> in = {{"x", Random(200 * 300, 6, kBF, 4)}};
  const auto run = RunOnDevice(g, in);
  std::vector<float> want(200 * 300);
  for (int i = 0; i < 200; ++i) {
    const float* r = &in["x"][i * 300];
    float mx = -INFINITY, sum = 0;
    for (int j = 0; j < 300; ++j) mx = std::max(mx, r[j]);
    for (int j = 0; j < 300; ++j) sum += std::exp(r[j] - mx);
    for (int j = 0; j < 300; ++j) want[i * 300 + j] = R(kBF, std::exp(r[j] - mx) / sum);
  }
  ExpectNear(run.outputs.at("y"), want, 1.0f / 256, "softmax");  // x * (1 / sum): one bf16 rounding step
  // exp(x - max) is one activation with bias -max and the row sum as its accumulator.
  const Kernel& k = run.kernel.kernel;
  int reduces = 0, acc = 0;
  for (const InstructionView& in : k.stream(EngineId::kVector)) reduces += in.opcode == Opcode::kTensorReduce;
  for (const InstructionView& in : k.stream(EngineId::kScalar)) acc += in.acc.present();
  EXPECT_EQ(reduces, 2);  // max, per row tile (2 tiles)
  EXPECT_EQ(acc, 2);
}

// A decomposition's form of the same softmax: upcast, compute in fp32, cast
// back. The exact casts fold away (cast_folding.h): the same kernel, the
// same values, the same device time.
TEST(Codegen, ExactCastsFoldIntoTheOpsAroundThem) {
  auto softmax = [](bool casts) {
    Graph g;
    const ValueId in = g.Input("x", C(kBF, {200, 300}));
    const ValueId x = casts ? g.Cast(in, kF) : in;
    const ValueId e = g.Unary(OpKind::kExp, g.Binary(OpKind::kSub, x, g.RowReduce(OpKind::kRowAmax, x, kF), kF), kF);
    const ValueId y = g.Binary(OpKind::kDiv, e, g.RowReduce(OpKind::kRowSum, e, kF), casts ? kF : kBF);
    g.Output(casts ? g.Cast(y, kBF) : y, "y", C(kBF, {200, 300}));
    return g;
  };
  const std::map<std::string, std::vector<float>> in = {{"x", Random(200 * 300, 6, kBF, 4)}};
  const auto plain = RunOnDevice(softmax(false), in), cast = RunOnDevice(softmax(true), in);
  ExpectNear(cast.outputs.at("y"), plain.outputs.at("y"), 0.0f, "softmax with casts");
  EXPECT_EQ(cast.device_time, plain.device_time);
  for (EngineId e : {EngineId::kVector, EngineId::kScalar, EngineId::kGpSimd, EngineId::kSync}) {
    EXPECT_EQ(cast.kernel.kernel.stream(e).size(), plain.kernel.kernel.stream(e).size()) << static_cast<int>(e);
  }
}

TEST(Codegen, ManyTilesDoubleBufferAndAgree) {
  Graph g;
  const ValueId x = g.Input("x", C(kBF, {300, 700}));
  const ValueId y = g.Input("y", C(kBF, {300, 700}));
  g.Output(g.Unary(OpKind::kSilu, g.Binary(OpKind::kMul, x, y, kBF), kBF), "z", C(kBF, {300, 700}));
  std::map<std::string, std::vector<float>> in = {{"x", Random(300 * 700, 7, kBF, 3)}, {"y", Random(300 * 700, 8, kBF)}};
  GenerateOptions o;
  o.max_tile_cols = 256;
  const auto run = RunOnDevice(g, in, o);
  std::vector<float> want(300 * 700);
  for (size_t i = 0; i < want.size(); ++i) {
    const float p = R(kBF, in["x"][i] * in["y"][i]);
    want[i] = R(kBF, p / (1.0f + std::exp(-p)));
  }
  ExpectNear(run.outputs.at("z"), want, 0.0f, "z");
}

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Mat AsMat(const std::vector<float>& v, int64_t r, int64_t c) { return Eigen::Map<const Mat>(v.data(), r, c); }
std::vector<float> Round(const Mat& m, DType t) {
  std::vector<float> v(m.data(), m.data() + m.size());
  for (float& x : v) x = R(t, x);
  return v;
}

TEST(Codegen, MatmulSeveralTilesAndKChunks) {
  Graph g;
  const ValueId a = g.Input("a", C(kBF, {512, 512}));
  const ValueId b = g.Input("b", C(kBF, {512, 1024}));
  g.Output(g.Matmul(a, b, kBF), "c", C(kBF, {512, 1024}));
  std::map<std::string, std::vector<float>> in = {{"a", Random(512 * 512, 9, kBF)}, {"b", Random(512 * 1024, 10, kBF)}};
  const auto run = RunOnDevice(g, in);
  const Mat want = AsMat(in["a"], 512, 512) * AsMat(in["b"], 512, 1024);
  ExpectNear(run.outputs.at("c"), Round(want, kBF), 1.0f / 64, "c");
}

TEST(Codegen, MatmulOfTransposedViewsUsesDirectLoads) {
  // c = a.t() @ w.t() with a [K=200, M=70] and w [N=90, K=200] stored row-major.
  Graph g;
  const ValueId at = g.Input("a", TensorDesc{kF, {70, 200}, {1, 70}, 0});
  const ValueId wt = g.Input("w", TensorDesc{kF, {200, 90}, {1, 200}, 0});
  g.Output(g.Matmul(at, wt, kF), "c", C(kF, {70, 90}));
  std::map<std::string, std::vector<float>> in = {{"a", Random(200 * 70, 11, kF)}, {"w", Random(90 * 200, 12, kF)}};
  const auto run = RunOnDevice(g, in);
  const Mat want = AsMat(in["a"], 200, 70).transpose() * AsMat(in["w"], 90, 200).transpose();
  ExpectNear(run.outputs.at("c"), Round(want, kF), 1e-5f, "c");
}

TEST(Codegen, SwiGluMlpIsOneKernelWithIntermediatesInSbuf) {
  // out = (silu(x @ W1) * (x @ W3)) @ W2: three matmul stages, the SiLU and
  // the product as epilogues, h kept in SBUF between stages.
  const int64_t M = 256, D = 256, F = 384;
  Graph g;
  const ValueId x = g.Input("x", C(kBF, {M, D}));
  const ValueId w1 = g.Input("w1", C(kBF, {D, F}));
  const ValueId w3 = g.Input("w3", C(kBF, {D, F}));
  const ValueId w2 = g.Input("w2", C(kBF, {F, D}));
  const ValueId h1 = g.Unary(OpKind::kSilu, g.Matmul(x, w1, kBF), kBF);
  const ValueId h = g.Binary(OpKind::kMul, h1, g.Matmul(x, w3, kBF), kBF);
  g.Output(g.Matmul(h, w2, kBF), "out", C(kBF, {M, D}));
  std::map<std::string, std::vector<float>> in = {{"x", Random(M * D, 13, kBF)},
                                                  {"w1", Random(D * F, 14, kBF, 0.2f)},
                                                  {"w3", Random(D * F, 15, kBF, 0.2f)},
                                                  {"w2", Random(F * D, 16, kBF, 0.2f)}};
  const auto run = RunOnDevice(g, in);
  const Mat xm = AsMat(in["x"], M, D);
  std::vector<float> a1 = Round(xm * AsMat(in["w1"], D, F), kBF), a3 = Round(xm * AsMat(in["w3"], D, F), kBF);
  std::vector<float> hv(M * F);
  for (size_t i = 0; i < hv.size(); ++i) hv[i] = R(kBF, R(kBF, a1[i] / (1.0f + std::exp(-a1[i]))) * a3[i]);
  const Mat want = AsMat(hv, M, F) * AsMat(in["w2"], F, D);
  ExpectNear(run.outputs.at("out"), Round(want, kBF), 1.0f / 32, "out");
  bool scratch = false;
  for (const TensorDecl& t : run.kernel.kernel.tensors) scratch |= t.name.rfind("_scratch", 0) == 0;
  EXPECT_FALSE(scratch) << "intermediates should stay in SBUF";
}

TEST(Codegen, LayerNormAndRowReductionOutputs) {
  // mean/rstd outputs of shape [R] (keepdim=False) next to y.
  const int64_t R_ = 130, Cc = 96;
  Graph g;
  const ValueId x = g.Input("x", C(kF, {R_, Cc}));
  const ValueId mean = g.RowReduce(OpKind::kRowMean, x, kF);
  const ValueId d = g.Binary(OpKind::kSub, x, mean, kF);
  const ValueId var = g.RowReduce(OpKind::kRowMean, g.Unary(OpKind::kSquare, d, kF), kF);
  const ValueId rstd = g.Unary(OpKind::kRsqrt, g.Binary(OpKind::kAdd, var, g.Constant(1e-5), kF), kF);
  g.Output(g.Binary(OpKind::kMul, d, rstd, kF), "y", C(kF, {R_, Cc}));
  g.Output(g.View(rstd, {R_}), "rstd", C(kF, {R_}));
  std::map<std::string, std::vector<float>> in = {{"x", Random(R_ * Cc, 17, kF, 3)}};
  const auto run = RunOnDevice(g, in);
  std::vector<float> y(R_ * Cc), rs(R_);
  for (int64_t i = 0; i < R_; ++i) {
    const float* r = &in["x"][i * Cc];
    float m = 0, v = 0;
    for (int64_t j = 0; j < Cc; ++j) m += r[j];
    m /= Cc;
    for (int64_t j = 0; j < Cc; ++j) v += (r[j] - m) * (r[j] - m);
    rs[i] = 1.0f / std::sqrt(v / Cc + 1e-5f);
    for (int64_t j = 0; j < Cc; ++j) y[i * Cc + j] = (r[j] - m) * rs[i];
  }
  ExpectNear(run.outputs.at("y"), y, 1e-6f, "y");
  ExpectNear(run.outputs.at("rstd"), rs, 1e-6f, "rstd");
}

TEST(Codegen, WhereIsAPredicatedCopyWithBroadcastOperands) {
  // y = where(c, a, b) with c [64, 1] (a column), a [64, 96], b [96] (a row
  // broadcast over rows) holding inf and NaN where a is chosen, and z =
  // where(c2, 7, a) with an immediate: a blend c * a + (1 - c) * b would
  // give NaN wherever b is inf/NaN; the select copies a. Many tiles.
  Graph g;
  const ValueId c = g.Input("c", C(DType::kBool, {64, 1}));
  const ValueId c2 = g.Input("c2", C(DType::kBool, {64, 96}));
  const ValueId a = g.Input("a", C(kBF, {64, 96}));
  const ValueId b = g.Input("b", C(kF, {96}));
  g.Output(g.Where(c, a, g.Cast(b, kBF), kBF), "y", C(kBF, {64, 96}));
  g.Output(g.Where(c2, g.Constant(7.0, kF), g.Cast(a, kF), kF), "z", C(kF, {64, 96}));
  std::vector<float> cond(64), cond2(64 * 96), bv = Random(96, 5, kF);
  for (int i = 0; i < 64; ++i) cond[i] = i % 3 == 0 ? 1.0f : 0.0f;
  for (int i = 0; i < 64 * 96; ++i) cond2[i] = i % 7 == 0 ? 1.0f : 0.0f;
  for (int j = 0; j < 96; j += 4) bv[j] = j % 8 == 0 ? INFINITY : NAN;
  std::map<std::string, std::vector<float>> in = {{"c", cond}, {"c2", cond2}, {"a", Random(64 * 96, 4, kBF)}, {"b", bv}};
  GenerateOptions small;
  small.max_tile_cols = 32;
  const auto run = RunOnDevice(g, in, small);
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < 96; ++j) {
      const float y = run.outputs.at("y")[i * 96 + j], z = run.outputs.at("z")[i * 96 + j];
      const float want_y = cond[i] != 0 ? in["a"][i * 96 + j] : R(kBF, bv[j]);
      if (std::isnan(want_y)) {
        EXPECT_TRUE(std::isnan(y)) << i << "," << j;
      } else {
        EXPECT_EQ(y, want_y) << i << "," << j;
      }
      EXPECT_EQ(z, cond2[i * 96 + j] != 0 ? 7.0f : in["a"][i * 96 + j]) << i << "," << j;
    }
  }
}

TEST(Codegen, UnsupportedDtypeNamesTheOp) {
  Graph g;
  const ValueId x = g.Input("x", C(DType::kI32, {4}));
  g.Output(g.Unary(OpKind::kExp, x, DType::kI32), "y", C(DType::kI32, {4}));
  const HardwareConfig c = rt::Runtime::Get().core(0).config();
  try {
    GenerateKernel(g, c);
    FAIL() << "no error";
  } catch (const SimError& e) {
    EXPECT_EQ(std::string(e.what()), "codegen: 'exp' does not support dtype i32 on the device");
  }
}

TEST(Codegen, SoftmaxAlongAMiddleDimTilesOverTwoRowDims) {
  // x [3, 50, 64] contiguous, softmax over dim 1: rows (3, 64) do not merge.
  Graph g;
  const TensorDesc xd{kF, {3, 64, 50}, {3200, 1, 64}, 0};
  const ValueId x = g.Input("x", xd);
  const ValueId m = g.RowReduce(OpKind::kRowAmax, x, kF);
  const ValueId e = g.Unary(OpKind::kExp, g.Binary(OpKind::kSub, x, m, kF), kF);
  g.Output(g.Binary(OpKind::kDiv, e, g.RowReduce(OpKind::kRowSum, e, kF), kF), "y", xd);
  std::map<std::string, std::vector<float>> in = {{"x", Random(3 * 50 * 64, 30, kF, 2)}};
  const auto run = RunOnDevice(g, in);
  std::vector<float> want(3 * 50 * 64);
  for (int a = 0; a < 3; ++a) {
    for (int c = 0; c < 64; ++c) {
      float mx = -INFINITY, sum = 0;
      for (int b = 0; b < 50; ++b) mx = std::max(mx, in["x"][a * 3200 + b * 64 + c]);
      for (int b = 0; b < 50; ++b) sum += std::exp(in["x"][a * 3200 + b * 64 + c] - mx);
      for (int b = 0; b < 50; ++b) want[a * 3200 + b * 64 + c] = std::exp(in["x"][a * 3200 + b * 64 + c] - mx) / sum;
    }
  }
  ExpectNear(run.outputs.at("y"), want, 1e-6f, "y");
}

TEST(Codegen, MisalignedIntermediatesGoThroughHbmScratch) {
  // out = y @ relu(x @ w): the product is the second matmul's [K, N]
  // operand, read in K chunks of 128 rows, while its own stage tiles rows
  // by 64: it cannot stay in SBUF as it is, so it goes through HBM.
  Graph g;
  const ValueId x = g.Input("x", C(kF, {256, 96}));
  const ValueId w = g.Input("w", C(kF, {96, 80}));
  const ValueId y = g.Input("y", C(kF, {40, 256}));
  g.Output(g.Matmul(y, g.Unary(OpKind::kRelu, g.Matmul(x, w, kF), kF), kF), "out", C(kF, {40, 80}));
  std::map<std::string, std::vector<float>> in = {
      {"x", Random(256 * 96, 31, kF)}, {"w", Random(96 * 80, 32, kF)}, {"y", Random(40 * 256, 33, kF)}};
  GenerateOptions o;
  o.max_tile_rows = 64;
  const auto run = RunOnDevice(g, in, o);
  Mat h = AsMat(in["x"], 256, 96) * AsMat(in["w"], 96, 80);
  h = h.cwiseMax(0.0f);
  ExpectNear(run.outputs.at("out"), Round(AsMat(in["y"], 40, 256) * h, kF), 1e-4f, "out");  // fp32 sums in another order
  bool scratch = false;
  for (const TensorDecl& t : run.kernel.kernel.tensors) scratch |= t.name.rfind("_scratch", 0) == 0;
  EXPECT_TRUE(scratch);
}

TEST(Codegen, SoftmaxOfAMatmulKeepsTheProductInSbuf) {
  Graph g;
  const ValueId x = g.Input("x", C(kBF, {200, 64}));
  const ValueId w = g.Input("w", C(kBF, {64, 300}));
  const ValueId s = g.Matmul(x, w, kF);
  const ValueId e = g.Unary(OpKind::kExp, g.Binary(OpKind::kSub, s, g.RowReduce(OpKind::kRowAmax, s, kF), kF), kF);
  g.Output(g.Binary(OpKind::kDiv, e, g.RowReduce(OpKind::kRowSum, e, kF), kBF), "p", C(kBF, {200, 300}));
  std::map<std::string, std::vector<float>> in = {{"x", Random(200 * 64, 34, kBF)}, {"w", Random(64 * 300, 35, kBF)}};
  const auto run = RunOnDevice(g, in);
  const Mat sm = AsMat(in["x"], 200, 64) * AsMat(in["w"], 64, 300);
  std::vector<float> want(200 * 300);
  for (int i = 0; i < 200; ++i) {
    const float mx = sm.row(i).maxCoeff();
    float sum = 0;
    for (int j = 0; j < 300; ++j) sum += std::exp(sm(i, j) - mx);
    for (int j = 0; j < 300; ++j) want[i * 300 + j] = R(kBF, std::exp(sm(i, j) - mx) / sum);
  }
  ExpectNear(run.outputs.at("p"), want, 1.0f / 128, "p");
  for (const TensorDecl& t : run.kernel.kernel.tensors) EXPECT_NE(t.name.rfind("_scratch", 0), 0u) << t.name;
}

TEST(Codegen, ARowThatCannotFitSbufIsAnError) {
  Graph g;
  const ValueId x = g.Input("x", C(kF, {2, 1 << 20}));
  g.Output(g.RowReduce(OpKind::kRowSum, g.Unary(OpKind::kExp, x, kF), kF), "s", C(kF, {2, 1}));
  try {
    GenerateKernel(g, rt::Runtime::Get().core(0).config());
    FAIL() << "no error";
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit on trn2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a row reduction needs its whole row in SBUF"), std::string::npos);
  }
}

TEST(Codegen, AnInputAsAnOutputIsACopyThroughSbuf) {
  // y = x.t() materialised: the output is the input itself, read through
  // its transposed view; no engine instruction is needed.
  Graph g;
  const ValueId x = g.Input("x", TensorDesc{kBF, {5, 7}, {1, 5}, 0});
  g.Output(x, "y", C(kBF, {5, 7}));
  std::map<std::string, std::vector<float>> in = {{"x", Random(35, 36, kBF)}};
  const auto run = RunOnDevice(g, in);
  std::vector<float> want(35);
  for (int i = 0; i < 5; ++i) for (int j = 0; j < 7; ++j) want[i * 7 + j] = in["x"][j * 5 + i];
  ExpectNear(run.outputs.at("y"), want, 0.0f, "y");
  EXPECT_TRUE(run.kernel.kernel.stream(EngineId::kVector).empty());
}

}  // namespace
}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
