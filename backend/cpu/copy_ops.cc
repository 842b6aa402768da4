// CPU kernels that write into an existing tensor: copy_ (with broadcasting
// and dtype conversion) and fill_. Cross-device copies are not here: they
// take the CompositeExplicit copy_ (composite/conversion_ops.cc).
#include "backend/cpu/loops.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/type_promotion.h"

namespace nsim {
namespace at {
namespace {

Tensor copy_(const Tensor& self, const Tensor& src, bool /*non_blocking: host copies are synchronous*/) {
  CopyMeta(self, src);
  // Integer-to-integer copies go through int64 so large ints stay exact;
  // everything else through fp32, which holds every bf16/fp16 value exactly.
  const bool integral = !IsFloatingType(self.dtype()) && !IsFloatingType(src.dtype());
  if (integral) ConvertLoop<int64_t>(self, src, [](int64_t x) { return x; });
  else ConvertLoop<float>(self, src, [](float x) { return x; });
  return self;
}

Tensor fill_(const Tensor& self, const Scalar& value) {
  const Tensor v = WrappedScalarTensor(value);
  return copy_(self, v, false);
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("copy_", &copy_);
  m.impl("fill_.Scalar", &fill_);
}

}  // namespace at
}  // namespace nsim
