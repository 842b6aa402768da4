// masked_fill, threshold and threshold_backward, each one where.self (a
// predicated copy on the device, never arithmetic blending): their kernels
// on every backend (CompositeExplicit) and compile()'s decompositions
// (backend/compile/decompositions.cc), written once.
#include "backend/composite/training_ops.h"
#include "backend/library.h"
#include "backend/ops.h"
#include "backend/type_promotion.h"
#include "sim/base/error.h"

namespace nsim {
namespace at {
namespace decomp {
namespace {

void CheckMask(const Tensor& mask) {
  if (mask.dtype() != kBool) {
    throw SimError(std::string("masked_fill_ only supports boolean masks, but got mask with dtype ") +
                   ToString(mask.dtype()));
  }
}

// `value` as a 0-dim operand whose promotion with `self` keeps self's dtype
// (a wrapped number does unless it is floating and self is not).
Tensor FillValue(const Tensor& self, const Scalar& value) {
  const Tensor v = WrappedScalarTensor(value);
  return ResultType(self, v) == self.dtype() ? v : v.to(self.dtype());
}

}  // namespace

Tensor MaskedFillScalar(const Tensor& self, const Tensor& mask, const Scalar& value) {
  CheckMask(mask);
  return where(mask, FillValue(self, value), self);
}

Tensor MaskedFillTensor(const Tensor& self, const Tensor& mask, const Tensor& value) {
  CheckMask(mask);
  if (value.dim() != 0) {
    throw SimError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with " +
                   std::to_string(value.dim()) + " dimension(s).");
  }
  return where(mask, CastTo(value, self.dtype()), self);
}

// PyTorch's threshold: x <= threshold ? value : x. Its CPU kernel compares
// bfloat16/float16 x widened to float with the float threshold (not the
// threshold rounded to x's dtype, as le would).
Tensor Threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  return where(le(Upcast(self), threshold), FillValue(self, value), self);
}

// ReLU's backward (threshold 0): self <= threshold ? 0 : grad, in the
// operands' common dtype (threshold's kernel, compared as there).
Tensor ThresholdBackward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  const Tensor grad = CastTo(grad_output, ResultType(grad_output, self));
  return where(le(Upcast(self), threshold), FillValue(grad, Scalar(0)), grad);
}

}  // namespace decomp

NSIM_LIBRARY_IMPL(aten, CompositeExplicit, m) {
  m.impl("masked_fill.Scalar", &decomp::MaskedFillScalar);
  m.impl("masked_fill.Tensor", &decomp::MaskedFillTensor);
  m.impl("threshold", &decomp::Threshold);
  m.impl("threshold_backward", &decomp::ThresholdBackward);
}

}  // namespace at
}  // namespace nsim
