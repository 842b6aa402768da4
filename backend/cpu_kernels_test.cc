// Every CPU reference kernel against straightforward loops written here
// independently (index arithmetic with at(), fp32 math, one rounding per
// output element), over float32/bfloat16/float16/int32, broadcasting and
// non-contiguous inputs.
#include <cmath>
#include <functional>

#include "backend/test_util.h"

namespace nsim {
namespace at {
namespace {

using testing::Values;

float Round(ScalarType t, float v) {
  return t == kBool ? (v != 0) : RoundTo(ToSimDType(t == kBool ? kInt : t), v);
}

// Multi-index of linear position `i` in `shape`.
IntList Unravel(int64_t i, const IntList& shape) {
  IntList idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

// Index into `t` for output index `idx` under broadcasting.
float Broadcast(const Tensor& t, const IntList& idx) {
  IntList ti(t.dim());
  const size_t off = idx.size() - t.dim();
  for (int64_t d = 0; d < t.dim(); ++d) ti[d] = t.size(d) == 1 ? 0 : idx[off + d];
  return t.at<float>(ti);
}

std::vector<float> RefBinary(const Tensor& a, const Tensor& b, ScalarType out,
                             const std::function<float(float, float)>& f) {
  const IntList shape = BroadcastShapes(a.sizes(), b.sizes());
  std::vector<float> r;
  for (int64_t i = 0; i < Numel(shape); ++i) {
    const IntList idx = Unravel(i, shape);
    r.push_back(Round(out, f(Broadcast(a, idx), Broadcast(b, idx))));
  }
  return r;
}

std::vector<float> RefUnary(const Tensor& a, ScalarType out, const std::function<float(float)>& f) {
  std::vector<float> r;
  for (int64_t i = 0; i < a.numel(); ++i) r.push_back(Round(out, f(a.at<float>(Unravel(i, a.sizes())))));
  return r;
}

// A [3, 4] input that is a transposed view (non-contiguous) of dtype t.
Tensor Strided(ScalarType t, uint64_t seed) { return randn({4, 3}, seed, t).t(); }

class BinaryTest : public ::testing::TestWithParam<ScalarType> {};

TEST_P(BinaryTest, MatchesReferenceWithBroadcastingAndStrides) {
  const ScalarType t = GetParam();
  const Tensor a = Strided(t, 1);                     // [3, 4], strides [1, 3]
  const Tensor b = randn({4}, 2, t);                  // broadcast along rows
  const Tensor c = randn({3, 1}, 3, t);               // broadcast along columns
  EXPECT_EQ(Values(a + b), RefBinary(a, b, t, [](float x, float y) { return x + y; }));
  EXPECT_EQ(Values(add(a, c, 2.5)), RefBinary(a, c, t, [](float x, float y) { return x + 2.5f * y; }));
  EXPECT_EQ(Values(a - c), RefBinary(a, c, t, [](float x, float y) { return x - y; }));
  EXPECT_EQ(Values(a * b), RefBinary(a, b, t, [](float x, float y) { return x * y; }));
  EXPECT_EQ(Values(a / c), RefBinary(a, c, t, [](float x, float y) { return x / y; }));
  EXPECT_EQ(Values(maximum(a, b)), RefBinary(a, b, t, [](float x, float y) { return std::max(x, y); }));
  EXPECT_EQ(Values(minimum(c, a)), RefBinary(c, a, t, [](float x, float y) { return std::min(x, y); }));
  EXPECT_EQ((a * b).sizes(), (IntList{3, 4}));
  EXPECT_EQ((a * b).dtype(), t);
}

// Contiguous rows take the kernels' plain loops: all operands contiguous, the
// second or the first operand broadcast along the row (stride 0), and a
// single-element row; every case against the same reference.
TEST_P(BinaryTest, ContiguousRowsMatchReference) {
  const ScalarType t = GetParam();
  const Tensor a = randn({3, 40}, 5, t), b = randn({40}, 6, t), c = randn({3, 1}, 7, t);
  EXPECT_EQ(Values(a * b), RefBinary(a, b, t, [](float x, float y) { return x * y; }));
  EXPECT_EQ(Values(a * c), RefBinary(a, c, t, [](float x, float y) { return x * y; }));
  EXPECT_EQ(Values(c - a), RefBinary(c, a, t, [](float x, float y) { return x - y; }));
  EXPECT_EQ(Values(c / c), RefBinary(c, c, t, [](float x, float y) { return x / y; }));
}

INSTANTIATE_TEST_SUITE_P(Floats, BinaryTest, ::testing::Values(kFloat, kBFloat16, kHalf));

TEST(Binary, Bf16RoundsOncePerElement) {
  // 1 + 2^-8 is a tie between bf16 1.0 and 1.0078125: ties to even gives 1.0.
  const Tensor one = ones({1}, kBFloat16), tiny = full({1}, 0.00390625, kBFloat16);
  EXPECT_EQ(Values(one + tiny)[0], 1.0f);
  // 1.0078125 + 2^-8 ties to the even neighbour above, 1.015625.
  EXPECT_EQ(Values(full({1}, 1.0078125, kBFloat16) + tiny)[0], 1.015625f);
  // bf16 * python float stays bf16 and rounds the fp32 product once.
  const Tensor x = full({1}, 1.5, kBFloat16);
  EXPECT_EQ(Values(x * 1.1)[0], testing::BF16(1.5f * 1.1f));
}

TEST(Binary, Int32) {
  const Tensor a = arange(6).view({2, 3}), b = arange(3);
  EXPECT_EQ(Values(a * b), (std::vector<float>{0, 1, 4, 0, 4, 10}));
  EXPECT_EQ(Values(add(a, b, 2)), (std::vector<float>{0, 3, 6, 3, 6, 9}));
  EXPECT_EQ(Values(a / 2), (std::vector<float>{0, 0.5, 1, 1.5, 2, 2.5}));
  EXPECT_EQ(Values(maximum(a, full({}, 2))), (std::vector<float>{2, 2, 2, 3, 4, 5}));
  const Tensor big = full({1}, 100000);
  EXPECT_EQ((big * big).at<int64_t>({0}), static_cast<int32_t>(10000000000LL));  // wraps like int32
}

TEST(Binary, Errors) {
  EXPECT_THROW_MSG(ones({2, 4}) + ones({2, 3}),
                   "The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
                   "dimension 1");
  EXPECT_THROW_HAS(full({2}, true) - full({2}, true), "Subtraction, the `-` operator, with a bool tensor is not supported.");
}

class UnaryTest : public ::testing::TestWithParam<ScalarType> {};

TEST_P(UnaryTest, MatchesReference) {
  const ScalarType t = GetParam();
  const Tensor a = Strided(t, 4);
  const Tensor p = a.abs() + 0.5;  // positive, for log/sqrt/rsqrt
  auto sig = [](float x) { return 1.0f / (1.0f + std::exp(-x)); };
  EXPECT_EQ(Values(exp(a)), RefUnary(a, t, [](float x) { return std::exp(x); }));
  EXPECT_EQ(Values(log(p)), RefUnary(p, t, [](float x) { return std::log(x); }));
  EXPECT_EQ(Values(sqrt(p)), RefUnary(p, t, [](float x) { return std::sqrt(x); }));
  EXPECT_EQ(Values(rsqrt(p)), RefUnary(p, t, [](float x) { return 1.0f / std::sqrt(x); }));
  EXPECT_EQ(Values(reciprocal(p)), RefUnary(p, t, [](float x) { return 1.0f / x; }));
  EXPECT_EQ(Values(tanh(a)), RefUnary(a, t, [](float x) { return std::tanh(x); }));
  EXPECT_EQ(Values(sigmoid(a)), RefUnary(a, t, sig));
  EXPECT_EQ(Values(silu(a)), RefUnary(a, t, [&](float x) { return x * sig(x); }));
  EXPECT_EQ(Values(gelu(a)), RefUnary(a, t, [](float x) {
              return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f));
            }));
  EXPECT_EQ(Values(gelu(a, "tanh")), RefUnary(a, t, [](float x) {
              return 0.5f * x * (1.0f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
            }));
  EXPECT_EQ(Values(relu(a)), RefUnary(a, t, [](float x) { return x > 0 ? x : 0.0f; }));
  EXPECT_EQ(Values(-a), RefUnary(a, t, [](float x) { return -x; }));
  EXPECT_EQ(Values(a.pow(2)), RefUnary(a, t, [](float x) { return x * x; }));
  EXPECT_EQ(Values(a.square()), RefUnary(a, t, [](float x) { return x * x; }));
  EXPECT_EQ(Values(p.pow(0.5)), RefUnary(p, t, [](float x) { return std::sqrt(x); }));
  EXPECT_EQ(Values(p.pow(1.7)), RefUnary(p, t, [](float x) { return std::pow(x, 1.7f); }));
}

INSTANTIATE_TEST_SUITE_P(Floats, UnaryTest, ::testing::Values(kFloat, kBFloat16, kHalf));

TEST(Unary, IntegralInputs) {
  const Tensor i = arange(-2, 3);
  EXPECT_EQ(Values(exp(i)), RefUnary(i.to(kFloat), kFloat, [](float x) { return std::exp(x); }));
  EXPECT_EQ(Values(i.abs()), (std::vector<float>{2, 1, 0, 1, 2}));
  EXPECT_EQ(Values(i.pow(3)), (std::vector<float>{-8, -1, 0, 1, 8}));
  EXPECT_THROW_MSG(i.pow(-1), "Integers to negative integer powers are not allowed.");
  EXPECT_THROW_MSG(silu(i), "aten::silu does not support dtype Int");
  EXPECT_THROW_HAS(-full({1}, true), "Negation, the `-` operator, on a bool tensor is not supported.");
}

// Reference reduction over `dims` of a [2, 3, 4] tensor, fp32 accumulation.
std::vector<float> RefReduce(const Tensor& x, const std::vector<bool>& reduce, ScalarType out,
                             bool mean) {
  IntList out_shape;
  for (int64_t d = 0; d < x.dim(); ++d) out_shape.push_back(reduce[d] ? 1 : x.size(d));
  std::vector<float> acc(Numel(out_shape), 0.0f);
  std::vector<int> count(acc.size(), 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    IntList idx = Unravel(i, x.sizes());
    int64_t o = 0;
    for (int64_t d = 0; d < x.dim(); ++d) o = o * out_shape[d] + (reduce[d] ? 0 : idx[d]);
    acc[o] += x.at<float>(idx);
    ++count[o];
  }
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = Round(out, mean ? acc[i] / count[i] : acc[i]);
  return acc;
}

TEST(Reduce, SumAndMeanMatchReference) {
  for (ScalarType t : {kFloat, kBFloat16, kHalf}) {
    const Tensor x = randn({4, 3, 2}, 5, t).permute({2, 1, 0});  // [2, 3, 4], non-contiguous
    EXPECT_EQ(Values(x.sum({-1})), RefReduce(x, {false, false, true}, t, false));
    EXPECT_EQ(Values(x.mean({0, 2}, true)), RefReduce(x, {true, false, true}, t, true));
    EXPECT_EQ(x.mean({0, 2}, true).sizes(), (IntList{1, 3, 1}));
    // Contiguous rows: a row folding into one accumulator, and rows folding
    // element-wise into a row of accumulators.
    const Tensor c = randn({2, 3, 40}, 6, t);
    EXPECT_EQ(Values(c.mean({-1})), RefReduce(c, {false, false, true}, t, true));
    EXPECT_EQ(Values(c.sum({0})), RefReduce(c, {true, false, false}, t, false));
    EXPECT_EQ(x.mean({0, 2}).sizes(), (IntList{3}));
    EXPECT_EQ(Values(x.sum()), RefReduce(x, {true, true, true}, t, false));
    EXPECT_EQ(x.sum().dim(), 0);
    EXPECT_EQ(Values(x.mean()), RefReduce(x, {true, true, true}, t, true));
    EXPECT_EQ(x.sum({1}, false, kFloat).dtype(), kFloat);
  }
  EXPECT_EQ(Values(arange(6).view({2, 3}).sum({1})), (std::vector<float>{3, 12}));
  EXPECT_THROW_MSG(arange(3).mean(), "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Int");
  EXPECT_THROW_MSG(ones({2}).sum({0, 0}), "dim 0 appears multiple times in the list of dims");
}

TEST(Reduce, MaxAndVar) {
  const Tensor x = tensor({3, 7, 7, -1, 2, 9}, {2, 3});
  EXPECT_EQ(Values(x.amax({1})), (std::vector<float>{7, 9}));
  EXPECT_EQ(Values(x.amax()), (std::vector<float>{9}));
  EXPECT_EQ(Values(x.amax({0}, true)), (std::vector<float>{3, 7, 9}));
  auto [values, indices] = x.max(1);
  EXPECT_EQ(Values(values), (std::vector<float>{7, 9}));
  EXPECT_EQ(indices.dtype(), kLong);  // int64, as PyTorch's
  EXPECT_EQ(Values(indices.to(kFloat)), (std::vector<float>{1, 2}));  // first of the tied maxima
  EXPECT_EQ(std::get<0>(x.t().max(0, true)).sizes(), (IntList{1, 2}));
  EXPECT_NEAR(Values(x.var({1}))[0], 5.3333335f, 1e-6);       // unbiased
  EXPECT_NEAR(Values(x.var({1}, 0))[1], 17.555555f, 1e-5);    // population
  EXPECT_TRUE(std::isnan(Values(tensor({1, NAN, 2}).amax())[0]));
}

// amin, declared by one line of backend/reduction_ops.def, as NumPy's
// np.min: [[3, 7, 7], [-1, 2, 9]].min(axis=1) = [3, -1], .min(axis=0) =
// [-1, 2, 7]; integral dtypes kept; NaN propagates; no empty reduced dim.
TEST(Reduce, Amin) {
  const Tensor x = tensor({3, 7, 7, -1, 2, 9}, {2, 3});
  EXPECT_EQ(Values(x.amin({1})), (std::vector<float>{3, -1}));
  EXPECT_EQ(Values(x.amin({0}, true)), (std::vector<float>{-1, 2, 7}));
  EXPECT_EQ(x.amin({0}, true).sizes(), (IntList{1, 3}));
  EXPECT_EQ(Values(x.amin()), (std::vector<float>{-1}));
  EXPECT_EQ(arange(6).amin().dtype(), kInt);
  EXPECT_EQ(arange(6).amin().item<int64_t>(), 0);
  EXPECT_TRUE(std::isnan(Values(tensor({1, NAN, -2}).amin())[0]));
  EXPECT_THROW_MSG(ones({2, 0}).amin({1}), "amin(): Expected reduction dim 1 to have non-zero size.");
}

// Naive reference: fp32 accumulation, one rounding per output.
std::vector<float> RefMm(const Tensor& a, const Tensor& b, ScalarType t) {
  std::vector<float> r;
  for (int64_t i = 0; i < a.size(0); ++i) {
    for (int64_t j = 0; j < b.size(1); ++j) {
      float acc = 0;
      for (int64_t k = 0; k < a.size(1); ++k) acc += a.at<float>({i, k}) * b.at<float>({k, j});
      r.push_back(Round(t, acc));
    }
  }
  return r;
}

TEST(Linalg, MmMatchesReference) {
  for (ScalarType t : {kFloat, kBFloat16, kHalf}) {
    const Tensor a = randn({5, 7}, 6, t), b = randn({6, 7}, 7, t).t();  // b non-contiguous
    EXPECT_EQ(Values(mm(a, b)), RefMm(a, b, t));
    EXPECT_EQ(mm(a, b).dtype(), t);
  }
  const Tensor i = arange(6).view({2, 3});
  EXPECT_EQ(Values(mm(i, i.t())), (std::vector<float>{5, 14, 14, 50}));
  EXPECT_THROW_MSG(mm(ones({4, 3}), ones({4, 5})), "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)");
  EXPECT_THROW_MSG(mm(ones({4}), ones({4, 5})), "self must be a matrix");
  EXPECT_THROW_MSG(mm(ones({2, 2}), ones({2, 2}, kBFloat16)),
                   "expected mat1 and mat2 to have the same dtype, but got: Float != BFloat16");
}

TEST(Linalg, MatmulShapes) {
  const Tensor v = randn({4}, 1), m = randn({4, 5}, 2), b = randn({2, 1, 3, 4}, 3);
  EXPECT_EQ(matmul(v, v).dim(), 0);
  EXPECT_NEAR(matmul(v, v).item<float>(), Values((v * v).sum())[0], 1e-5);
  EXPECT_EQ(matmul(m.t(), v).sizes(), (IntList{5}));
  EXPECT_EQ(matmul(v, m).sizes(), (IntList{5}));
  EXPECT_EQ(matmul(b, m).sizes(), (IntList{2, 1, 3, 5}));
  EXPECT_EQ(matmul(b, randn({3, 4, 6}, 4)).sizes(), (IntList{2, 3, 3, 6}));
  EXPECT_EQ(matmul(b, v).sizes(), (IntList{2, 1, 3}));
  // Batched result equals per-batch mm.
  const Tensor x = randn({2, 3, 4}, 5), w = randn({2, 4, 2}, 6);
  EXPECT_EQ(Values(matmul(x, w).select(0, 1)), Values(mm(x.select(0, 1), w.select(0, 1))));
  EXPECT_EQ(Values(matmul(x, m)), Values(mm(x.reshape({6, 4}), m)));
  EXPECT_THROW_MSG(matmul(ones({}), m), "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
}

std::vector<float> RefSoftmaxLastDim(const Tensor& x, ScalarType t) {
  std::vector<float> r;
  const int64_t n = x.size(-1);
  for (int64_t i = 0; i < x.numel() / n; ++i) {
    std::vector<float> row;
    for (int64_t j = 0; j < n; ++j) row.push_back(Values(x)[i * n + j]);
    float mx = -INFINITY, s = 0;
    for (float v : row) mx = std::max(mx, v);
    for (float& v : row) s += (v = std::exp(v - mx));
    for (float v : row) r.push_back(Round(t, v / s));
  }
  return r;
}

TEST(Nn, Softmax) {
  for (ScalarType t : {kFloat, kBFloat16}) {
    const Tensor x = randn({3, 5}, 8, t);
    EXPECT_EQ(Values(softmax(x, -1)), RefSoftmaxLastDim(x, t));
    EXPECT_EQ(Values(softmax(x, 0).t()), RefSoftmaxLastDim(x.t(), t));
    EXPECT_TRUE(softmax(x, 0).is_contiguous());
  }
  EXPECT_EQ(softmax(ones({2}, kBFloat16), 0, kFloat).dtype(), kFloat);
  EXPECT_THROW_MSG(softmax(arange(3), 0), "aten::softmax does not support dtype Int");
}

TEST(Nn, LayerNormAndRmsNorm) {
  const int64_t n = 16;
  for (ScalarType t : {kFloat, kBFloat16}) {
    const Tensor x = randn({3, n}, 9, t), w = randn({n}, 10, t), b = randn({n}, 11, t);
    const std::vector<float> xv = Values(x), wv = Values(w), bv = Values(b);
    std::vector<float> ln, rms;
    for (int64_t r = 0; r < 3; ++r) {
      float mean = 0, var = 0, ss = 0;
      for (int64_t j = 0; j < n; ++j) mean += xv[r * n + j];
      mean /= n;
      for (int64_t j = 0; j < n; ++j) {
        const float v = xv[r * n + j];
        var += (v - mean) * (v - mean);
        ss += v * v;
      }
      const float rstd = 1.0f / std::sqrt(var / n + 1e-5f);
      const float rrms = 1.0f / std::sqrt(ss / n + 1e-6f);
      for (int64_t j = 0; j < n; ++j) {
        ln.push_back(Round(t, (xv[r * n + j] - mean) * rstd * wv[j] + bv[j]));
        rms.push_back(Round(t, xv[r * n + j] * rrms * wv[j]));
      }
    }
    EXPECT_EQ(Values(layer_norm(x, {n}, w, b)), ln);
    EXPECT_EQ(Values(rms_norm(x, {n}, w, 1e-6)), rms);
    const auto [y, rstd] = _fused_rms_norm(x, {n}, w, 1e-6);
    EXPECT_EQ(rstd.sizes(), (IntList{3, 1}));
    EXPECT_EQ(rstd.dtype(), kFloat);
    EXPECT_EQ(y.dtype(), t);
  }
  // Default eps is finfo(dtype).eps: 2^-7 for bf16.
  const Tensor z = zeros({1, 4}, kBFloat16), one = full({1, 4}, 1.0, kBFloat16);
  EXPECT_EQ(Values(rms_norm(one, {4})), Values(rms_norm(one, {4}, std::nullopt, 0.0078125)));
  EXPECT_THROW_MSG(rms_norm(ones({4, 256}), {512}),
                   "Given normalized_shape=[512], expected input with shape [*, 512], but got input of size[4, 256]");
  EXPECT_THROW_MSG(rms_norm(ones({4, 512}), {512}, ones({256})),
                   "Expected weight to be of same shape as normalized_shape, but got weight of shape [256] and normalized_shape = [512]");
  (void)z;
}

TEST(Copy, BroadcastsAndConverts) {
  Tensor dst = zeros({2, 3}, kBFloat16);
  dst.copy_(tensor({1.00390625f, 2, 3}));
  EXPECT_EQ(Values(dst), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  Tensor i = zeros({3}, kInt);
  i.copy_(tensor({-1.7f, 0.2f, 2.9f}));
  EXPECT_EQ(Values(i), (std::vector<float>{-1, 0, 2}));
  EXPECT_THROW_MSG(zeros({3}).copy_(ones({2, 3})), "output with shape [3] doesn't match the broadcast shape [2, 3]");
}

}  // namespace
}  // namespace at
}  // namespace nsim
