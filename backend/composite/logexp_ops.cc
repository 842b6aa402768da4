// logaddexp and log_sigmoid_forward in terms of core ops, for every backend
// (CompositeExplicit); logaddexp is also compile()'s decomposition
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
  m.impl("log_sigmoid_forward", &log_sigmoid_forward);
}

}  // namespace at
}  // namespace nsim
