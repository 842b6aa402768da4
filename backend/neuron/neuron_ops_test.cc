// Every Neuron op against the CPU reference: bf16 within one rounding step,
// fp32 tight; broadcasting, non-contiguous views (transposes, slices),
// Python scalars, several tiles, and the errors for what the device lacks.
#include <cmath>

#include "backend/neuron/neuron_test_util.h"

namespace nsim {
namespace neuron {
namespace {

using at::kBFloat16;
using at::kFloat;
using at::Tensor;
using testing::Dev;
using testing::ExpectClose;

Tensor Randn(const at::IntList& sizes, uint64_t seed, at::ScalarType t) { return at::randn(sizes, seed, t); }

class NeuronOps : public ::testing::TestWithParam<at::ScalarType> {};
INSTANTIATE_TEST_SUITE_P(Dtypes, NeuronOps, ::testing::Values(kBFloat16, kFloat),
                         [](const auto& info) { return std::string(at::ToString(info.param)); });

TEST_P(NeuronOps, BinaryOpsWithBroadcastingViewsAndScalars) {
  const at::ScalarType t = GetParam();
  const Tensor a = Randn({4, 1, 8}, 1, t), b = Randn({3, 8}, 2, t), c = Randn({8, 12}, 3, t).t();  // c: [12, 8] transposed
  const Tensor da = Dev(a), db = Dev(b), dc = Dev(Randn({8, 12}, 3, t)).t();
  ExpectClose(da + db, a + b, "add broadcast");
  ExpectClose(at::add(da, db, 2.5), at::add(a, b, 2.5), "add alpha");
  ExpectClose(at::sub(db, da, 0.5), at::sub(b, a, 0.5), "sub alpha");
  ExpectClose(da * db, a * b, "mul");
  ExpectClose(da / (db + 3.0), a / (b + 3.0), "div");
  ExpectClose(at::maximum(da, db), at::maximum(a, b), "maximum");
  ExpectClose(at::minimum(da, db), at::minimum(a, b), "minimum");
  ExpectClose(dc * 2.0 + 1e-3, c * 2.0 + 1e-3, "transposed view with scalars");
  ExpectClose(2.0 - dc, 2.0 - c, "rsub");
  ExpectClose(1.5 / dc, 1.5 / c, "scalar / tensor");
  const Tensor s = Dev(Randn({10, 16}, 4, t)).slice(0, 1, 9, 2).slice(1, 3, 15);  // [4, 12], strided rows
  ExpectClose(s * s - s, Randn({10, 16}, 4, t).slice(0, 1, 9, 2).slice(1, 3, 15) *
                             Randn({10, 16}, 4, t).slice(0, 1, 9, 2).slice(1, 3, 15) -
                             Randn({10, 16}, 4, t).slice(0, 1, 9, 2).slice(1, 3, 15),
              "slices");
}

TEST_P(NeuronOps, MixedDtypesPromoteLikePyTorch) {
  const Tensor a = Randn({5, 7}, 5, GetParam()), b = Randn({7}, 6, kFloat);
  const Tensor got = Dev(a) * Dev(b);
  EXPECT_EQ(got.dtype(), kFloat);
  ExpectClose(got, a * b, "bf16 * f32");
  const Tensor i = at::arange(0, 35, 1, at::kInt).view({5, 7});
  ExpectClose(Dev(i) / 4.0, i / 4.0, "int / float");
}

TEST_P(NeuronOps, UnaryOps) {
  const at::ScalarType t = GetParam();
  const Tensor x = Randn({6, 40}, 7, t), pos = at::exp(Randn({6, 40}, 8, t));
  const Tensor dx = Dev(x), dp = Dev(pos);
  ExpectClose(-dx, -x, "neg");
  ExpectClose(at::abs(dx), at::abs(x), "abs");
  ExpectClose(at::exp(dx), at::exp(x), "exp");
  ExpectClose(at::log(dp), at::log(pos), "log");
  ExpectClose(at::sqrt(dp), at::sqrt(pos), "sqrt");
  ExpectClose(at::rsqrt(dp), at::rsqrt(pos), "rsqrt");
  ExpectClose(at::reciprocal(dp), at::reciprocal(pos), "reciprocal");
  ExpectClose(at::relu(dx), at::relu(x), "relu");
  ExpectClose(at::tanh(dx), at::tanh(x), "tanh");
  ExpectClose(at::sigmoid(dx), at::sigmoid(x), "sigmoid");
  ExpectClose(at::silu(dx), at::silu(x), "silu");
  ExpectClose(at::gelu(dx), at::gelu(x), "gelu");
  ExpectClose(at::gelu(dx, "tanh"), at::gelu(x, "tanh"), "gelu tanh");
  ExpectClose(at::square(dx), at::square(x), "square");
  for (double e : {2.0, 3.0, 0.5, -0.5, -1.0, 1.7}) {
    ExpectClose(at::pow(dp, e), at::pow(pos, e), "pow " + std::to_string(e));
  }
}

TEST_P(NeuronOps, ReductionsOverAnyDims) {
  const at::ScalarType t = GetParam();
  const Tensor x = Randn({6, 5, 40}, 9, t);
  const Tensor dx = Dev(x);
  ExpectClose(dx.mean({-1}, true), x.mean({-1}, true), "mean last keepdim");
  ExpectClose(dx.sum({-1}), x.sum({-1}), "sum last", 2);
  ExpectClose(dx.amax({-1}), x.amax({-1}), "amax last");
  ExpectClose(dx.mean({0}), x.mean({0}), "mean dim 0 (strided rows)");
  ExpectClose(dx.sum({0, 2}, true), x.sum({0, 2}, true), "sum dims 0 and 2 (copied in order)", 2);
  ExpectClose(dx.sum(), x.sum(), "sum all", 2);
  ExpectClose(dx.transpose(0, 2).mean({-1}), x.transpose(0, 2).mean({-1}), "mean of a transposed view");
  ExpectClose(dx.var({-1}), x.var({-1}), "var", 2);
  ExpectClose(dx.sum({-1}, false, kFloat), x.sum({-1}, false, kFloat), "sum with dtype");
}

TEST_P(NeuronOps, SoftmaxAndNorms) {
  const at::ScalarType t = GetParam();
  const Tensor x = Randn({3, 50, 64}, 10, t), w = Randn({64}, 11, t), b = Randn({64}, 12, t);
  const Tensor dx = Dev(x), dw = Dev(w), db = Dev(b);
  ExpectClose(dx.softmax(-1), x.softmax(-1), "softmax last");
  ExpectClose(dx.softmax(1), x.softmax(1), "softmax dim 1");
  ExpectClose(at::layer_norm(dx, {64}, dw, db, 1e-5), at::layer_norm(x, {64}, w, b, 1e-5), "layer_norm");
  const auto [y, mean, rstd] = at::native_layer_norm(dx, {64}, dw, std::nullopt, 1e-5);
  const auto [yc, meanc, rstdc] = at::native_layer_norm(x, {64}, w, std::nullopt, 1e-5);
  ExpectClose(y, yc, "native_layer_norm y");
  ExpectClose(mean, meanc, "native_layer_norm mean");
  ExpectClose(rstd, rstdc, "native_layer_norm rstd");
  ExpectClose(at::rms_norm(dx, {64}, dw, 1e-6), at::rms_norm(x, {64}, w, 1e-6), "rms_norm");
  ExpectClose(at::rms_norm(dx.transpose(0, 1), {64}), at::rms_norm(x.transpose(0, 1), {64}), "rms_norm view, no weight");
}

TEST_P(NeuronOps, MatrixProducts) {
  const at::ScalarType t = GetParam();
  const Tensor a = Randn({70, 200}, 13, t), b = Randn({200, 90}, 14, t), w = Randn({90, 200}, 15, t);
  const float ulps = 4;  // accumulation order differs from the reference's
  ExpectClose(at::mm(Dev(a), Dev(b)), at::mm(a, b), "mm", ulps);
  ExpectClose(at::matmul(Dev(a), Dev(w).t()), at::matmul(a, w.t()), "x @ W.t()", ulps);
  ExpectClose(at::matmul(Dev(b).t(), Dev(a).t()), at::matmul(b.t(), a.t()), "both transposed", ulps);
  const Tensor x3 = Randn({2, 30, 200}, 16, t), y3 = Randn({2, 200, 20}, 17, t);
  ExpectClose(at::matmul(Dev(x3), Dev(b)), at::matmul(x3, b), "3-D @ 2-D", ulps);
  ExpectClose(at::bmm(Dev(x3), Dev(y3)), at::bmm(x3, y3), "bmm", ulps);
  ExpectClose(at::matmul(Dev(x3), Dev(y3)), at::matmul(x3, y3), "batched matmul", ulps);
}

TEST_P(NeuronOps, CopiesAndCastsOnTheDevice) {
  const at::ScalarType t = GetParam();
  const Tensor x = Randn({9, 14}, 18, t);
  const Tensor dx = Dev(x);
  const at::ScalarType other = t == kFloat ? kBFloat16 : kFloat;
  ExpectClose(dx.to(other), x.to(other), "cast on device");
  ExpectClose(dx.t().contiguous(), x.t().contiguous(), "contiguous of a transpose");
  ExpectClose(dx.t(), x.t(), "a transposed view read back");
  EXPECT_FLOAT_EQ(dx.select(0, 3).select(0, 5).item<float>(), x.at<float>({3, 5}));
  Tensor target = at::zeros({9, 14}, at::TensorOptions(t).device(testing::Neuron0()));
  target.slice(1, 2, 8).copy_(x.slice(1, 0, 6));  // host -> strided device slice
  Tensor want = at::zeros({9, 14}, t);
  want.slice(1, 2, 8).copy_(x.slice(1, 0, 6));
  ExpectClose(target, want, "copy_ into a device slice");
  ExpectClose(Dev(at::arange(0, 6, 1, at::kInt)).to(t), at::arange(0, 6, 1, at::kInt).to(t), "int to float");
  ExpectClose(dx.clone(), x, "clone (device to device)");
}

TEST(NeuronOpsDevices, SecondCoreAndCopiesBetweenCores) {
  const Tensor x = Randn({6, 10}, 23, kBFloat16);
  const Tensor on1 = x.to(at::Device("neuron:1"));
  const Tensor y = at::exp(on1) * 2.0;
  EXPECT_EQ(y.device(), at::Device("neuron:1"));
  ExpectClose(y, at::exp(x) * 2.0, "on neuron:1");
  ExpectClose(y.to(testing::Neuron0()), at::exp(x) * 2.0, "neuron:1 -> neuron:0");
  ExpectClose(on1.t().to(testing::Neuron0()), x.t(), "strided view across cores");
  Tensor filled = at::empty({3, 4}, at::TensorOptions(kBFloat16).device(testing::Neuron0()));
  filled.fill_(1.5);
  ExpectClose(filled, at::full({3, 4}, 1.5, kBFloat16), "fill_");
}

TEST(NeuronOpsLarge, ManyTilesStillAgree) {
  const Tensor x = Randn({1024, 4096}, 19, kBFloat16), y = Randn({1024, 4096}, 20, kBFloat16);
  ExpectClose(at::silu(Dev(x)) * Dev(y), at::silu(x) * y, "[1024, 4096] bf16");
  const Tensor a = Randn({512, 512}, 21, kBFloat16), b = Randn({512, 1024}, 22, kBFloat16);
  ExpectClose(at::mm(Dev(a), Dev(b)), at::mm(a, b), "[512,512] x [512,1024]", 4);
  ExpectClose(Dev(x).softmax(-1), x.softmax(-1), "softmax [1024, 4096]");
}

// float -> int32 truncates toward zero and -> bool is != 0, as ATen
// converts (the engines' store alone would round: -1.5 -> -2, 2.5 -> 2).
TEST(NeuronCasts, ToIntegralAndBoolAreAtensConversions) {
  const Tensor x = at::arange(-6, 6, 1, at::kFloat) * 0.75;  // -4.5 .. 3.75, halves included
  const std::vector<float> ints = at::testing::Values(Dev(x).to(at::kInt).to(at::kFloat));
  const std::vector<float> bools = at::testing::Values(Dev(x).to(at::kBool).to(at::kFloat));
  const std::vector<float> xs = at::testing::Values(x);
  for (size_t k = 0; k < xs.size(); ++k) {
    EXPECT_EQ(ints[k], std::trunc(xs[k])) << xs[k];
    EXPECT_EQ(bools[k], xs[k] != 0.0f ? 1.0f : 0.0f) << xs[k];
  }
}

// Integer add/sub keep every bit though the engines compute in fp32 (limb
// carries, integer_ops.cc): int32 beyond 2^24 and int64 beyond int32, wrapping
// at the ends as two's complement.
TEST(NeuronIntegers, AddSubEqNeAreExact) {
  Tensor i = at::full({3}, at::Scalar(int64_t{0}), at::TensorOptions().dtype(at::kInt));
  int32_t* p = static_cast<int32_t*>(i.data_ptr());
  p[0] = (1 << 24) + 1, p[1] = INT32_MAX, p[2] = -123456789;
  const Tensor sum = (Dev(i) + Dev(i)).to(at::Device(at::kCPU)), diff = (Dev(i) - 1).to(at::Device(at::kCPU));
  const int32_t* s = static_cast<const int32_t*>(sum.data_ptr());
  const int32_t* d = static_cast<const int32_t*>(diff.data_ptr());
  EXPECT_EQ(s[0], (1 << 25) + 2);
  EXPECT_EQ(s[1], -2);  // INT32_MAX * 2 wraps
  EXPECT_EQ(s[2], -246913578);
  EXPECT_EQ(d[0], 1 << 24);
  Tensor l = at::full({2}, at::Scalar(int64_t{0}), at::TensorOptions().dtype(at::kLong));
  int64_t* q = static_cast<int64_t*>(l.data_ptr());
  q[0] = (int64_t{1} << 40) + 7, q[1] = INT64_MIN;
  const Tensor lsum = (Dev(l) + Dev(l)).to(at::Device(at::kCPU));
  EXPECT_EQ(static_cast<const int64_t*>(lsum.data_ptr())[0], (int64_t{1} << 41) + 14);
  EXPECT_EQ(static_cast<const int64_t*>(lsum.data_ptr())[1], 0);  // wraps
  // eq / ne see every bit: 2^24 + 1 and 2^24 are one fp32 value.
  Tensor j = i.clone();
  static_cast<int32_t*>(j.data_ptr())[0] = 1 << 24;
  const Tensor eq = at::eq(Dev(i), Dev(j)).to(at::Device(at::kCPU)), ne = at::ne(Dev(l), Dev(l)).to(at::Device(at::kCPU));
  EXPECT_FALSE(static_cast<const bool*>(eq.data_ptr())[0]);
  EXPECT_TRUE(static_cast<const bool*>(eq.data_ptr())[1]);
  EXPECT_FALSE(static_cast<const bool*>(ne.data_ptr())[0]);
}

TEST(NeuronOpsErrors, UnsupportedOpsAndDtypesNameTheOpAndDtype) {
  const Tensor i = Dev(at::arange(0, 6, 1, at::kInt));
  EXPECT_THROW_MSG(-i, "aten::neg is not implemented for the Neuron backend (dtype Int)");
  EXPECT_THROW_MSG(i * i, "aten::mul.Tensor is not implemented for the Neuron backend (dtype Int)");
  EXPECT_THROW_MSG(i.sum({0}), "aten::sum.dim_IntList is not implemented for the Neuron backend (dtype Int)");
  const Tensor f = Dev(at::ones({2, 3}));
  EXPECT_THROW_MSG(at::argmax(i), "aten::argmax is not implemented for the Neuron backend (dtype Int)");
  // The ALU compares in fp32, inexact for int32 beyond 2^24: orderings are
  // refused (eq / ne compare limbs: NeuronIntegers).
  EXPECT_THROW_MSG(at::lt(i, i), "aten::lt.Tensor is not implemented for the Neuron backend (dtype Int)");
  EXPECT_THROW_MSG(f * Dev(at::ones({3, 2})),
                   "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
}

}  // namespace
}  // namespace neuron
}  // namespace nsim
