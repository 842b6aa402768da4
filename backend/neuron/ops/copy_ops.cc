// aten::copy_ for Neuron tensors. The CompositeExplicit copy_
// (composite/conversion_ops.cc) moves contiguous bytes between devices and
// converts on the host; what it cannot do is the device side of a copy
// whose device tensor is strided, broadcast or of another dtype. This
// kernel does that part on the device — one generated kernel reading the
// source through its view and writing the destination through its own
// (casting on VectorE) — and hands the rest to the composite.
#include "backend/dispatcher.h"
#include "backend/empty_tensor.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"
#include "backend/neuron/op_lowering.h"
#include "backend/neuron/codegen/tiling.h"
#include "backend/type_promotion.h"

namespace nsim {
namespace neuron {
namespace {

using at::Tensor;
const char* const kOp = "aten::copy_";

Tensor Composite(const Tensor& self, const Tensor& src, bool non_blocking) {
  static const at::KernelFunction& k =
      at::Dispatcher::Singleton().findSchemaOrThrow(kOp).entry().kernel(at::DispatchKey::CompositeExplicit);
  return k.callUnboxed<Tensor, const Tensor&, const Tensor&, bool>(self, src, non_blocking);
}

bool SameLayout(const Tensor& dst, const Tensor& src) {
  return dst.dtype() == src.dtype() && dst.sizes() == src.sizes() && dst.is_contiguous() && src.is_contiguous();
}

// dst = src on one core, any layouts, src broadcast to dst, any dtypes the
// device holds, converted as ATen converts (ExactCast).
void DeviceCopy(const Tensor& dst, const Tensor& src) {
  codegen::TensorDesc s = DescOf(src);
  const std::vector<int64_t> sizes(dst.sizes().begin(), dst.sizes().end());
  s.strides = codegen::BroadcastStrides(s.sizes, s.strides, sizes);
  s.sizes = sizes;
  LaunchGraph(kOp, {{{"src", src}}, {{"dst", dst}}}, [&] {
    codegen::Graph g;
    g.Output(ExactCast(g, g.Input("src", s), at::ToSimDType(dst.dtype())), "dst", DescOf(dst));
    return g;
  });
}

Tensor copy_(const Tensor& self, const Tensor& src, bool non_blocking) {
  at::CopyMeta(self, src);
  if (self.is_same(src) || self.numel() == 0) return self;
  const bool src_dev = !src.is_cpu(), dst_dev = !self.is_cpu();
  if (src_dev && dst_dev) {
    if (SameLayout(self, src)) return Composite(self, src, non_blocking);
    if (CoreIndex(self.device()) == CoreIndex(src.device())) {
      DeviceCopy(self, src);
      return self;
    }
    Tensor staged = at::EmptyTensor(self.sizes(), self.dtype(), src.device());  // convert where src is
    DeviceCopy(staged, src);
    return Composite(self, staged, non_blocking);
  }
  if (src_dev && !src.is_contiguous()) {  // device -> host: make the device side contiguous first
    Tensor staged = at::EmptyTensor(src.sizes(), src.dtype(), src.device());
    DeviceCopy(staged, src);
    return Composite(self, staged, non_blocking);
  }
  if (dst_dev && !self.is_contiguous()) {  // host -> device: land contiguous, then scatter on the device
    Tensor staged = at::EmptyTensor(self.sizes(), self.dtype(), self.device());
    Composite(staged, src, non_blocking);
    DeviceCopy(self, staged);
    return self;
  }
  return Composite(self, src, non_blocking);
}

// The value goes to the device as a 0-dim tensor and is broadcast into
// self by the copy (staged on the host, one transfer).
Tensor fill_(const Tensor& self, const at::Scalar& value) { return copy_(self, at::WrappedScalarTensor(value), false); }

}  // namespace

NSIM_LIBRARY_IMPL(aten, Neuron, m) {
  m.impl("copy_", &copy_);
  m.impl("fill_.Scalar", &fill_);
}

}  // namespace neuron
}  // namespace nsim
