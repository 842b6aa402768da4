// logaddexp, xlogy, special_xlog1py, softplus and log_sigmoid_forward in terms of core ops, for every backend
// (CompositeExplicit); all but log_sigmoid_forward are also compile()'s decompositions
// (backend/compile/decompositions.cc). As PyTorch's CPU kernels, bf16/fp16
// inputs are computed in fp32 and rounded once.
#include <cmath>
#include <tuple>

#include "backend/composite/training_ops.h"
#include "backend/library.h"
#include "backend/ops.h"
#include "backend/tensor_options.h"
#include "backend/type_promotion.h"

namespace nsim {
namespace at {
namespace decomp {

// PyTorch's: a where a == b is +-inf (their difference would be NaN), else
// max(a, b) + log1p(exp(-|a - b|)) (NaN in either gives NaN).
Tensor Logaddexp(const Tensor& self, const Tensor& other) {
  const Tensor a = Upcast(self), b = Upcast(other);
  const Tensor r = maximum(a, b) + log1p(exp(neg(abs(a - b))));
  const Tensor same_inf = logical_and(eq(a, b), eq(abs(a), Scalar(INFINITY)));
  return CastTo(where(same_inf, a, r), ResultType(self, other));
}

// xlogy / xlog1py as PyTorch's CPU kernel: NaN where y is NaN, else 0 where
// x is 0 (even where log gives -inf or NaN), else x * log(y) (log1p(y)).
// Selected, never blended: 0 * -inf would be NaN.
Tensor XlogyLike(const Tensor& self, const Tensor& other, bool one_plus) {
  ScalarType out = ResultType(self, other);
  if (!IsFloatingType(out)) out = kFloat;
  const Tensor x = Upcast(CastTo(self, out)), y = Upcast(CastTo(other, out));
  Tensor r = x * (one_plus ? log1p(y) : log(y));
  r = where(eq(x, Scalar(0.0)), WrappedScalarTensor(Scalar(0.0)), r);
  r = where(isnan(y), WrappedScalarTensor(Scalar(NAN)), r);
  return CastTo(r, out);
}
Tensor Xlogy(const Tensor& self, const Tensor& other) { return XlogyLike(self, other, false); }
Tensor Xlog1py(const Tensor& self, const Tensor& other) { return XlogyLike(self, other, true); }

// PyTorch's: x where x * beta > threshold, else log1p(exp(x * beta)) / beta.
Tensor Softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  const Tensor x = Upcast(self), xb = x * beta;
  return CastTo(where(gt(xb, threshold), x, log1p(exp(xb)) / beta), self.dtype());
}

}  // namespace decomp
namespace {

// F.logsigmoid's op: the result, and a buffer that only the CPU's backward
// uses (empty, as on CUDA).
std::tuple<Tensor, Tensor> log_sigmoid_forward(const Tensor& self) {
  return std::make_tuple(log_sigmoid(self), empty({0}, TensorOptions(self.dtype()).device(self.device())));
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CompositeExplicit, m) {
  m.impl("logaddexp", &decomp::Logaddexp);
  m.impl("xlogy.Tensor", &decomp::Xlogy);
  m.impl("special_xlog1py", &decomp::Xlog1py);
  m.impl("softplus", &decomp::Softplus);
  m.impl("log_sigmoid_forward", &log_sigmoid_forward);
}

}  // namespace at
}  // namespace nsim
