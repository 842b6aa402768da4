// linalg_vector_norm in terms of core ops, for every backend
// (CompositeExplicit): on the device each step is one generated kernel
// (abs, pow, sum / amax / amin, sqrt; ne and a cast for ord 0), timed like any other. As PyTorch's
// CPU kernel, bf16/fp16 inputs are computed in fp32 and rounded once.
#include <cmath>
#include <optional>

#include "backend/composite/training_ops.h"
#include "backend/library.h"
#include "backend/ops.h"
#include "sim/base/error.h"

namespace nsim {
namespace at {
namespace {

// ||x||_ord over `dim` (every dim when absent or empty, as PyTorch):
// 2 -> sqrt(sum |x|^2), 1 -> sum |x|, +-inf -> amax/amin |x|,
// otherwise (sum |x|^ord)^(1/ord).
Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, const std::optional<IntList>& dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const ScalarType out_dtype = dtype ? *dtype : self.dtype();
  if (!IsFloatingType(self.dtype()) || !IsFloatingType(out_dtype)) {
    throw SimError(std::string("linalg.vector_norm: Expected a floating point or complex tensor as input. Got ") +
                   ToString(IsFloatingType(self.dtype()) ? out_dtype : self.dtype()));
  }
  const double p = ord.toDouble();
  const IntList dims = dim ? *dim : IntList{};
  const Tensor a = abs(decomp::Upcast(decomp::CastTo(self, out_dtype)));
  Tensor r;
  if (p == 0) {  // the count of the non-zeros (NaN included, as x != 0 is)
    r = sum(ne(a, Scalar(0.0)).to(kFloat), dims, keepdim);
  } else if (std::isinf(p)) {
    r = p > 0 ? amax(a, dims, keepdim) : amin(a, dims, keepdim);
  } else if (p == 1) {
    r = sum(a, dims, keepdim);
  } else if (p == 2) {
    r = sqrt(sum(a * a, dims, keepdim));
  } else {
    r = pow(sum(pow(a, ord), dims, keepdim), 1.0 / p);
  }
  return decomp::CastTo(r, out_dtype);
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CompositeExplicit, m) { m.impl("linalg_vector_norm", &linalg_vector_norm); }

}  // namespace at
}  // namespace nsim
