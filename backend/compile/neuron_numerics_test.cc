// Numerical agreement of compiled functions on the Neuron device with the
// same functions run eagerly on the device and on the CPU reference, in
// float32 and bfloat16: the op-by-op RMSNorm, LayerNorm and softmax, a
// SiLU-gated MLP, ATen's own composite ops (decomposed), and an elementwise
// and reduction chain large enough to be tiled.
#include <gtest/gtest.h>

#include "backend/compile/compile.h"
#include "backend/compile/neuron_test_util.h"
#include "backend/factories.h"
#include "backend/type_promotion.h"

namespace nsim {
namespace {

using at::Tensor;
using testing::MaxRelError;

const at::Device kNeuron("neuron:0");

double Tolerance(at::ScalarType t) { return t == at::kBFloat16 ? 2e-2 : 1e-5; }

Tensor Rand(const at::IntList& sizes, uint64_t seed, at::ScalarType dtype, double scale = 1.0) {
  return (at::randn(sizes, seed) * scale).to(dtype);
}

// Compiled on the device vs eager on the device vs the CPU reference; the
// replayed call equals the traced one.
template <class F, class... T>
void ExpectAgreement(F fn, double tol, const T&... cpu_args) {
  auto compiled = compile(fn, CompileOptions{.fullgraph = true});
  const Tensor reference = fn(cpu_args...);
  const Tensor eager = fn(cpu_args.to(kNeuron)...);
  const Tensor traced = compiled(cpu_args.to(kNeuron)...);
  const Tensor replayed = compiled(cpu_args.to(kNeuron)...);
  EXPECT_EQ(traced.device(), kNeuron);
  EXPECT_EQ(traced.dtype(), reference.dtype());
  EXPECT_EQ(traced.sizes(), reference.sizes());
  EXPECT_LE(MaxRelError(traced, reference), tol);
  EXPECT_LE(MaxRelError(traced, eager), tol);
  EXPECT_EQ(MaxRelError(replayed, traced), 0.0);
  EXPECT_EQ(compiled.core().traces(), 1);
}

class Numerics : public ::testing::TestWithParam<at::ScalarType> {};

TEST_P(Numerics, RmsNorm) {
  ExpectAgreement(&testing::RmsNorm, Tolerance(GetParam()), Rand({4, 512}, 0, GetParam()),
                  Rand({512}, 1, GetParam()));
}

TEST_P(Numerics, LayerNorm) {
  ExpectAgreement(&testing::LayerNorm, Tolerance(GetParam()), Rand({4, 512}, 0, GetParam()),
                  Rand({512}, 1, GetParam()), Rand({512}, 2, GetParam()));
}

TEST_P(Numerics, Softmax) {
  ExpectAgreement(&testing::Softmax, Tolerance(GetParam()), Rand({4, 512}, 0, GetParam(), 3.0));
}

TEST_P(Numerics, SiluGatedMlp) {
  ExpectAgreement(&testing::Mlp, 10 * Tolerance(GetParam()), Rand({4, 256}, 0, GetParam()),
                  Rand({256, 512}, 1, GetParam(), 1.0 / 16), Rand({256, 512}, 2, GetParam(), 1.0 / 16),
                  Rand({512, 256}, 3, GetParam(), 1.0 / 16));
}

// ATen's composite ops reach the lowering decomposed into core ops.
TEST_P(Numerics, CompositeOps) {
  const double tol = Tolerance(GetParam());
  ExpectAgreement([](const Tensor& x) { return x.softmax(-1); }, tol, Rand({8, 256}, 0, GetParam()));
  ExpectAgreement([](const Tensor& x, const Tensor& w, const Tensor& b) { return at::layer_norm(x, {256}, w, b); },
                  tol, Rand({8, 256}, 0, GetParam()), Rand({256}, 1, GetParam()), Rand({256}, 2, GetParam()));
  ExpectAgreement([](const Tensor& x, const Tensor& w) { return at::rms_norm(x, {256}, w, 1e-6); }, tol,
                  Rand({8, 256}, 0, GetParam()), Rand({256}, 1, GetParam()));
}

// PyTorch's var divides by max(0, n - correction): a correction above the
// count gives +inf (a positive sum over 0), never a negative variance.
// Eager on the device, compile() and the CPU reference agree.
TEST(Numerics, VarWithCorrectionAboveTheCount) {
  auto var = [](const Tensor& x) { return x.var({-1}, /*correction=*/11.0); };
  const Tensor x = Rand({4, 8}, 5, at::kFloat);
  auto compiled = compile(var, CompileOptions{.fullgraph = true});
  for (const Tensor& r : {var(x), var(x.to(kNeuron)), compiled(x.to(kNeuron))}) {
    const Tensor h = r.cpu();
    for (int64_t i = 0; i < h.numel(); ++i) EXPECT_EQ(h.data_ptr<float>()[i], INFINITY) << r.device().str() << " row " << i;
  }
}

// Many rows and a long free dim: several tiles, loads double-buffered.
TEST_P(Numerics, LargeElementwiseChain) {
  auto chain = [](const Tensor& x, const Tensor& b) { return at::relu(x * 0.5 + b) - at::sigmoid(x) * x; };
  ExpectAgreement(chain, Tolerance(GetParam()), Rand({512, 8192}, 0, GetParam()), Rand({8192}, 1, GetParam()));
}

TEST_P(Numerics, LongRowsWithReductions) {
  auto chain = [](const Tensor& x, const Tensor& b) {
    const Tensor y = at::relu(x + b) - at::sigmoid(x);
    return y * at::rsqrt((y * y).mean({-1}, true) + 1e-5) + at::exp(-x.abs()).sum({-1}, true);
  };
  ExpectAgreement(chain, Tolerance(GetParam()), Rand({256, 1024}, 0, GetParam()), Rand({1024}, 1, GetParam()));
}

// A copy into another layout (the head merge of attention: transpose,
// contiguous, view) is a tensor of its own: the view after it indexes the
// copy, not the input it was made from. The region splits at the view.
TEST_P(Numerics, ViewOfALayoutChangingCopy) {
  auto merge = [](const Tensor& q) { return q.transpose(0, 1).contiguous().view({2, 32}) * 2.0 + 1.0; };
  auto compiled = compile(merge);
  const Tensor q = Rand({8, 2, 4}, 0, GetParam());
  EXPECT_LE(MaxRelError(compiled(q.to(kNeuron)), merge(q)), Tolerance(GetParam()));
}

// An input read once (v @ w) and then transposed (v.t() @ w, as a linear
// layer's weight gradient does): the transpose reads the input again through
// its strides, not the copy already in row order (it once gave v @ w twice).
TEST_P(Numerics, TransposeOfAnInputAlreadyRead) {
  auto both = [](const Tensor& v, const Tensor& w) {
    const Tensor first = at::mm(v, w);
    return first + at::mm(v.t(), w);
  };
  ExpectAgreement(both, Tolerance(GetParam()), Rand({32, 32}, 0, GetParam()), Rand({32, 48}, 1, GetParam()));
}

// Every op of the unary table (backend/unary_ops.def), so a newly declared op
// is checked with no test to write: compiled vs eager on the device vs the
// CPU reference, on inputs in every op's domain (log, sqrt: positive).
TEST_P(Numerics, EveryTableUnaryOp) {
  const Tensor x = (Rand({16, 256}, 0, at::kFloat, 2.0).abs() + 0.25).to(GetParam());
  const double tol = Tolerance(GetParam());
#define NSIM_UNARY_OP(name, ...)                                             \
  {                                                                          \
    SCOPED_TRACE(#name);                                                     \
    ExpectAgreement([](const Tensor& t) { return at::name(t); }, tol, x);    \
  }
#include "backend/unary_ops.def"
}

// Every op of the binary table (backend/binary_ops.def), tensor with tensor
// (a row broadcast along the other) and tensor with a Python number.
TEST_P(Numerics, EveryTableBinaryOp) {
  const Tensor x = Rand({16, 256}, 0, GetParam(), 2.0);
  const Tensor y = (Rand({256}, 1, at::kFloat, 2.0).abs() + 0.25).to(GetParam());  // no division by ~0
  const double tol = Tolerance(GetParam());
#define NSIM_BINARY_OP(name, ...)                                                           \
  {                                                                                        \
    SCOPED_TRACE(#name);                                                                   \
    ExpectAgreement([](const Tensor& a, const Tensor& b) { return at::name(a, b); }, tol, x, y); \
    ExpectAgreement([](const Tensor& a) { return at::name(a, at::WrappedScalarTensor(0.75)); }, tol, x); \
  }
#include "backend/binary_ops.def"
}

// Every op of the reduction table (backend/reduction_ops.def) over the last
// dim, kept and dropped; eagerly also over a middle dim (a strided row,
// which compile() does not lower).
TEST_P(Numerics, EveryTableReduction) {
  const Tensor x = Rand({4, 16, 256}, 0, GetParam(), 2.0);
  const double tol = Tolerance(GetParam());
#define NSIM_REDUCTION_OP(name, ...)                                                          \
  {                                                                                           \
    SCOPED_TRACE(#name);                                                                      \
    ExpectAgreement([](const Tensor& t) { return at::name(t, {-1}, true); }, tol, x);         \
    ExpectAgreement([](const Tensor& t) { return at::name(t, {-1}, false) * 2.0; }, tol, x);  \
    EXPECT_LE(MaxRelError(at::name(x.to(kNeuron), {1}, true), at::name(x, {1}, true)), tol);  \
  }
#include "backend/reduction_ops.def"
}

// gelu's approximate is checked by its shape function, which compile()
// traces through: an unknown form raises there as in eager mode (compile()
// used to lower it silently as the erf form).
TEST(Drift, GeluUnknownApproximationRaisesInEagerAndCompile) {
  const Tensor x = at::randn({4, 64}, 0);
  auto bogus = [](const Tensor& t) { return at::gelu(t, "bogus"); };
  EXPECT_THROW(bogus(x), SimError);
  EXPECT_THROW(bogus(x.to(kNeuron)), SimError);
  auto compiled = compile(+bogus, CompileOptions{.fullgraph = true});
  try {
    compiled(x.to(kNeuron));
    ADD_FAILURE() << "compile() ran gelu(x, \"bogus\")";
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("approximate argument must be either none or tanh"), std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Numerics, ::testing::Values(at::kFloat, at::kBFloat16),
                         [](const auto& info) { return std::string(at::ToString(info.param)); });

}  // namespace
}  // namespace nsim
