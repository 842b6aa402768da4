#pragma once
// The ops a training step calls besides the forward ones -- optimizers'
// lerp/addcmul/addcdiv and autograd's backward formulas of tanh, sigmoid,
// gelu(tanh), softmax, log_softmax and layer_norm -- each written once, in
// terms of core ops. They are these ops' kernels on every backend
// (CompositeExplicit, training_ops.cc): eager on the device runs each as the
// core ops it calls. They are also decompositions in
// backend/compile/decompositions.cc's table, so compile() and
// torch.compile(backend="neuron") trace through the same functions.
//
// Low-precision inputs are upcast to Float for the computation and the
// result cast back once, as PyTorch's CPU kernels compute (opmath).
#include <optional>
#include <string>
#include <tuple>

#include "backend/scalar.h"
#include "backend/tensor.h"

namespace nsim {
namespace at {
namespace decomp {

inline bool IsLowPrecision(ScalarType t) { return t == kBFloat16 || t == kHalf; }
// Casts only when the dtype changes: a no-op cast would still be a node.
inline Tensor CastTo(const Tensor& x, ScalarType t) { return x.dtype() == t ? x : x.to(t); }
inline Tensor Upcast(const Tensor& x) { return IsLowPrecision(x.dtype()) ? x.to(kFloat) : x; }
// The trailing `n` dims of a `dim`-dim tensor.
IntList LastDims(int64_t dim, size_t n);

Tensor LerpScalar(const Tensor& self, const Tensor& end, const Scalar& weight);
Tensor LerpTensor(const Tensor& self, const Tensor& end, const Tensor& weight);
Tensor Addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
Tensor Addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
Tensor TanhBackward(const Tensor& grad_output, const Tensor& output);
Tensor SigmoidBackward(const Tensor& grad_output, const Tensor& output);
Tensor GeluBackward(const Tensor& grad_output, const Tensor& self, const std::string& approximate);
Tensor SoftmaxBackward(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype);
Tensor LogSoftmax(const Tensor& self, int64_t dim, bool half_to_float);
Tensor LogSoftmaxBackward(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype);
// The row functions (row_ops.cc): the CPU's kernels, the device's eager
// kernels' graphs and compile()'s decompositions.
Tensor Softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype);
std::tuple<Tensor, Tensor, Tensor> NativeLayerNorm(const Tensor& input, const IntList& normalized_shape,
                                                   const std::optional<Tensor>& weight,
                                                   const std::optional<Tensor>& bias, double eps);
std::tuple<Tensor, Tensor> FusedRmsNorm(const Tensor& input, const IntList& normalized_shape,
                                        const std::optional<Tensor>& weight, std::optional<double> eps);
Tensor Var(const Tensor& self, const std::optional<IntList>& dim, const std::optional<Scalar>& correction,
           bool keepdim);

// Selection composites of where.self (select_ops.cc).
Tensor MaskedFillScalar(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor MaskedFillTensor(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor Threshold(const Tensor& self, const Scalar& threshold, const Scalar& value);
Tensor ThresholdBackward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold);
// logexp_ops.cc
Tensor Logaddexp(const Tensor& self, const Tensor& other);
Tensor Xlogy(const Tensor& self, const Tensor& other);
Tensor Xlog1py(const Tensor& self, const Tensor& other);
Tensor Softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold);

std::tuple<Tensor, Tensor, Tensor> NativeLayerNormBackward(const Tensor& grad_out, const Tensor& input,
                                                           const IntList& normalized_shape, const Tensor& mean,
                                                           const Tensor& rstd, const std::optional<Tensor>& weight,
                                                           const std::optional<Tensor>& bias);

}  // namespace decomp
}  // namespace at
}  // namespace nsim
