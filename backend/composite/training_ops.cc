#include "backend/composite/training_ops.h"

#include <cmath>

#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/ops.h"
#include "backend/type_promotion.h"
#include "sim/base/error.h"

namespace nsim {
namespace at {
namespace decomp {

IntList LastDims(int64_t dim, size_t n) {
  IntList dims;
  for (int64_t d = dim - static_cast<int64_t>(n); d < dim; ++d) dims.push_back(d);
  return dims;
}

// lerp.Scalar: PyTorch's formula, which switches at |weight| = 0.5 so the
// result is exact at both ends: self + w * (end - self), or end - (1 - w) * (end - self).
Tensor LerpScalar(const Tensor& self, const Tensor& end, const Scalar& weight) {
  const double w = weight.toDouble();
  const Tensor a = Upcast(self), b = Upcast(end);
  const Tensor diff = b - a;
  const Tensor r = std::abs(w) < 0.5 ? add(a, diff, w) : sub(b, diff, 1.0 - w);
  return CastTo(r, ResultType(self, end));
}

Tensor LerpTensor(const Tensor& self, const Tensor& end, const Tensor& weight) {
  const Tensor a = Upcast(self);
  return CastTo(a + Upcast(weight) * (Upcast(end) - a), ResultType(self, end));
}

static ScalarType ResultType3(const Tensor& a, const Tensor& b, const Tensor& c) {
  return PromoteTypes(ResultType(a, b), c.dtype());
}

// self + value * tensor1 * tensor2, in fp32 for bf16/fp16, rounded once.
Tensor Addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  const Tensor r = add(Upcast(self), Upcast(t1) * Upcast(t2), value);
  return CastTo(r, ResultType3(self, t1, t2));
}

Tensor Addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  if (!IsFloatingType(t1.dtype()) && !IsFloatingType(t2.dtype())) {
    throw SimError("Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                   "will perform a true division of tensor1 and tensor2.");
  }
  const Tensor r = add(Upcast(self), Upcast(t1) / Upcast(t2), value);
  return CastTo(r, ResultType3(self, t1, t2));
}

// d tanh = grad * (1 - y^2), y = tanh(x) the forward's output.
Tensor TanhBackward(const Tensor& grad_output, const Tensor& output) {
  const Tensor y = Upcast(output);
  return CastTo(Upcast(grad_output) * rsub(y * y, 1), grad_output.dtype());
}

// d sigmoid = grad * (1 - y) * y.
Tensor SigmoidBackward(const Tensor& grad_output, const Tensor& output) {
  const Tensor y = Upcast(output);
  return CastTo(Upcast(grad_output) * rsub(y, 1) * y, grad_output.dtype());
}

// gelu(x) = x Phi(x): its derivative Phi(x) + x phi(x), in PyTorch's terms
// cdf = 0.5 (1 + erf(x / sqrt 2)), pdf = exp(-x^2 / 2) / sqrt(2 pi).
Tensor GeluErfBackward(const Tensor& grad_output, const Tensor& x) {
  constexpr double kAlpha = M_SQRT1_2, kBeta = M_2_SQRTPI * M_SQRT1_2 * 0.5;
  const Tensor cdf = add(erf(x * kAlpha), WrappedScalarTensor(1)) * 0.5;
  const Tensor pdf = exp(x * x * -0.5) * kBeta;
  return CastTo(Upcast(grad_output) * (cdf + x * pdf), grad_output.dtype());
}

// gelu(x, 'tanh') = 0.5 x (1 + tanh(k (x + 0.044715 x^3))), k = sqrt(2 / pi);
// its derivative in PyTorch's order of terms.
Tensor GeluBackward(const Tensor& grad_output, const Tensor& self, const std::string& approximate) {
  const Tensor x = Upcast(self);
  if (!IsGeluTanh(approximate)) return GeluErfBackward(grad_output, x);
  constexpr double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5, kKappa = 0.044715;
  const Tensor x_sq = x * x;
  const Tensor inner = (x + x_sq * x * kKappa) * kBeta;
  const Tensor t = tanh(inner);
  const Tensor left = x * 0.5;
  const Tensor left_derivative = add(t, WrappedScalarTensor(1)) * 0.5;
  const Tensor inner_derivative = add(x_sq * (3 * kKappa), WrappedScalarTensor(1)) * kBeta;
  const Tensor right_derivative = left * rsub(t * t, 1) * inner_derivative;
  return CastTo(Upcast(grad_output) * (left_derivative + right_derivative), grad_output.dtype());
}

// softmax's backward from its output y: y * (g - sum(g * y)).
Tensor SoftmaxBackward(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  const Tensor gy = Upcast(grad_output) * Upcast(output);
  return CastTo(gy - Upcast(output) * gy.sum({dim}, true), input_dtype);
}

Tensor LogSoftmax(const Tensor& self, int64_t dim, bool half_to_float) {
  if (half_to_float) throw SimError("_log_softmax with half_to_float=True is not supported");
  const Tensor x = Upcast(self);
  const Tensor shifted = x - x.amax({dim}, true);
  return CastTo(shifted - log(exp(shifted).sum({dim}, true)), self.dtype());
}

// log_softmax's backward from its output y: g - exp(y) * sum(g).
Tensor LogSoftmaxBackward(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  const Tensor g = Upcast(grad_output);
  return CastTo(g - exp(Upcast(output)) * g.sum({dim}, true), input_dtype);
}

// The gradients of native_layer_norm from its saved mean and rstd, as
// PyTorch's decomposition: with x^ = (x - mean) * rstd and g^ = g * weight,
// dx = rstd / N * (N g^ - sum(g^) - x^ sum(x^ g^)) over the normalised dims;
// dweight = sum(g x^), dbias = sum(g) over the others. Absent weight or bias
// have no gradient (undefined).
std::tuple<Tensor, Tensor, Tensor> NativeLayerNormBackward(const Tensor& grad_out, const Tensor& input,
                                                           const IntList& normalized_shape, const Tensor& mean,
                                                           const Tensor& rstd, const std::optional<Tensor>& weight,
                                                           const std::optional<Tensor>& bias) {
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  const IntList inner = LastDims(input.dim(), normalized_shape.size());
  IntList outer;
  for (int64_t d = 0; d < axis; ++d) outer.push_back(d);
  double n = 1;
  for (int64_t s : normalized_shape) n *= static_cast<double>(s);
  const Tensor g = Upcast(grad_out);
  const Tensor x_hat = (Upcast(input) - Upcast(mean)) * Upcast(rstd);
  const bool has_w = weight && weight->defined(), has_b = bias && bias->defined();
  const Tensor g_hat = has_w ? g * Upcast(*weight) : g;
  const Tensor inner_sum = g_hat * n - g_hat.sum(inner, true) - x_hat * (x_hat * g_hat).sum(inner, true);
  const Tensor dx = CastTo(Upcast(rstd) / n * inner_sum, input.dtype());
  // Over the outer dims (none when every dim is normalised: then it is the value itself).
  auto outer_sum = [&](const Tensor& t, const Tensor& like) {
    return CastTo(outer.empty() ? t : t.sum(outer, false), like.dtype());
  };
  return {dx, has_w ? outer_sum(g * x_hat, *weight) : Tensor(), has_b ? outer_sum(g, *bias) : Tensor()};
}

}  // namespace decomp

NSIM_LIBRARY_IMPL(aten, CompositeExplicit, m) {
  m.impl("lerp.Scalar", &decomp::LerpScalar);
  m.impl("lerp.Tensor", &decomp::LerpTensor);
  m.impl("addcmul", &decomp::Addcmul);
  m.impl("addcdiv", &decomp::Addcdiv);
  m.impl("tanh_backward", &decomp::TanhBackward);
  m.impl("sigmoid_backward", &decomp::SigmoidBackward);
  m.impl("gelu_backward", &decomp::GeluBackward);
  m.impl("_softmax_backward_data", &decomp::SoftmaxBackward);
  m.impl("_log_softmax", &decomp::LogSoftmax);
  m.impl("_log_softmax_backward_data", &decomp::LogSoftmaxBackward);
  m.impl("native_layer_norm_backward", &decomp::NativeLayerNormBackward);
}

}  // namespace at
}  // namespace nsim
