// CPU reference kernels for row-wise functions: softmax, layer norm and the
// fused RMSNorm. Each reads its rows into fp32, computes the whole function in
// fp32 and rounds once per output element — the contract a fused device
// kernel is checked against.
#include <cmath>

#include "backend/composite/view_ops.h"
#include "backend/cpu/loops.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"

namespace nsim {
namespace at {
namespace {

void SoftmaxRow(float* x, int64_t n) {
  float max = -INFINITY;
  for (int64_t i = 0; i < n; ++i) max = std::max(max, x[i]);
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += (x[i] = std::exp(x[i] - max));
  for (int64_t i = 0; i < n; ++i) x[i] /= sum;
}

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const TensorMeta m = SoftmaxMeta(self, dim, dtype);
  Tensor out = MakeOutput(m);
  if (self.dim() == 0) {
    WriteAll(out, std::vector<float>{1.0f});
    return out;
  }
  // Move `dim` last so each softmax row is contiguous in the buffer.
  const int64_t d = MaybeWrapDim(dim, self.dim());
  IntList perm;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (i != d) perm.push_back(i);
  }
  perm.push_back(d);
  std::vector<float> x = ReadAll<float>(view::Permute(self, perm));
  const int64_t n = self.size(d);
  for (int64_t r = 0; n > 0 && r < static_cast<int64_t>(x.size()) / n; ++r) SoftmaxRow(&x[r * n], n);
  WriteAll(view::Permute(out, perm), x);
  return out;
}

// Optional per-column parameter (weight or bias) as floats, or `fill` when absent.
std::vector<float> ColumnParam(const std::optional<Tensor>& p, int64_t cols, float fill) {
  if (p && p->defined()) return ReadAll<float>(*p);
  return std::vector<float>(cols, fill);
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input,
                                                     const IntList& normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     double eps) {
  const NormMetaResult r = NormMeta(input, normalized_shape, weight, bias);
  std::vector<float> x = ReadAll<float>(input);
  const std::vector<float> w = ColumnParam(weight, r.cols, 1.0f);
  const std::vector<float> b = ColumnParam(bias, r.cols, 0.0f);
  std::vector<float> means(r.rows), rstds(r.rows);
  for (int64_t row = 0; row < r.rows; ++row) {
    float* xr = &x[row * r.cols];
    float mean = 0, var = 0;
    for (int64_t j = 0; j < r.cols; ++j) mean += xr[j];
    mean /= static_cast<float>(r.cols);
    for (int64_t j = 0; j < r.cols; ++j) var += (xr[j] - mean) * (xr[j] - mean);
    var /= static_cast<float>(r.cols);  // biased, as layer_norm uses
    const float rstd = 1.0f / std::sqrt(var + static_cast<float>(eps));
    for (int64_t j = 0; j < r.cols; ++j) xr[j] = (xr[j] - mean) * rstd * w[j] + b[j];
    means[row] = mean;
    rstds[row] = rstd;
  }
  Tensor out = MakeOutput(r.out), mean_t = MakeOutput(r.stat), rstd_t = MakeOutput(r.stat);
  WriteAll(out, x);
  WriteAll(mean_t, means);
  WriteAll(rstd_t, rstds);
  return std::make_tuple(out, mean_t, rstd_t);
}

// y = x * rsqrt(mean(x^2 over the normalised dims) + eps) * weight, in fp32.
std::tuple<Tensor, Tensor> fused_rms_norm(const Tensor& input, const IntList& normalized_shape,
                                          const std::optional<Tensor>& weight,
                                          std::optional<double> eps) {
  const NormMetaResult r = NormMeta(input, normalized_shape, weight, std::nullopt);
  const float e = static_cast<float>(eps ? *eps : RmsNormDefaultEps(input.dtype()));
  std::vector<float> x = ReadAll<float>(input);
  const std::vector<float> w = ColumnParam(weight, r.cols, 1.0f);
  std::vector<float> rstds(r.rows);
  for (int64_t row = 0; row < r.rows; ++row) {
    float* xr = &x[row * r.cols];
    float ss = 0;
    for (int64_t j = 0; j < r.cols; ++j) ss += xr[j] * xr[j];
    const float rstd = 1.0f / std::sqrt(ss / static_cast<float>(r.cols) + e);
    for (int64_t j = 0; j < r.cols; ++j) xr[j] = xr[j] * rstd * w[j];
    rstds[row] = rstd;
  }
  Tensor out = MakeOutput(r.out), rstd_t = MakeOutput(r.stat);
  WriteAll(out, x);
  WriteAll(rstd_t, rstds);
  return std::make_tuple(out, rstd_t);
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("softmax.int", &softmax);
  m.impl("native_layer_norm", &native_layer_norm);
  m.impl("_fused_rms_norm", &fused_rms_norm);
}

}  // namespace at
}  // namespace nsim
