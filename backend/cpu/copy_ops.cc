// CPU kernels that write into an existing tensor: copy_ (with broadcasting
// and dtype conversion), fill_ and arange.start_out. Cross-device copies are not here: they
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

// ATen's arange: start + step * i in the dtype's accumulate type (double
// for float32, float for bf16/fp16, int64 for the integers), stored.
template <class A>
void ArangeLoop(const Tensor& out, A start, A step) {
  const StoreFn<A> store = StorerFor<A>(out.dtype());
  char* p = static_cast<char*>(out.data_ptr());
  for (int64_t i = 0; i < out.numel(); ++i) store(p + i * out.stride(0) * out.element_size(), start + step * static_cast<A>(i));
}

Tensor arange_out(const Scalar& start, const Scalar& end, const Scalar& step, const Tensor& out) {
  CheckArangeOut(start, end, step, out);
  const ScalarType t = out.dtype();
  if (IsIntegralType(t, true)) {
    ArangeLoop<int64_t>(out, start.toLong(), step.toLong());
  } else if (t == kBFloat16 || t == kHalf) {
    ArangeLoop<float>(out, static_cast<float>(start.toDouble()), static_cast<float>(step.toDouble()));
  } else {
    ArangeLoop<double>(out, start.toDouble(), step.toDouble());
  }
  return out;
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("arange.start_out", &arange_out);
  m.impl("copy_", &copy_);
  m.impl("fill_.Scalar", &fill_);
}

}  // namespace at
}  // namespace nsim
