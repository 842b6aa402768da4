// Creation, conversion and cross-device copies, written once for every
// backend (CompositeExplicit). A backend may still register its own kernel
// for any of these at its key; it then takes precedence.
//
//   x.to(neuron) = aten::to.device -> aten::_to_copy -> aten::empty.memory_format
//                                                    + aten::copy_ -> copy function
#include "backend/copy_registry.h"
#include "backend/dispatcher.h"
#include "backend/empty_tensor.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/ops.h"

namespace nsim {
namespace at {
namespace {

Tensor empty_memory_format(const IntList& size, std::optional<ScalarType> dtype,
                           std::optional<Device> device) {
  return EmptyTensor(size, dtype.value_or(kDefaultFloat), device.value_or(Device(kCPU)));
}

// One contiguous byte transfer through the registered copy function.
void Transfer(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const CopyFunction fn = GetCopyFunction(src.device().type(), dst.device().type());
  fn(CopyRequest{dst.storage().data(), static_cast<size_t>(dst.storage_offset() * dst.element_size()),
                 dst.device(), src.storage().data(),
                 static_cast<size_t>(src.storage_offset() * src.element_size()), src.device(),
                 static_cast<size_t>(dst.nbytes()), non_blocking});
}

// True when src's bytes can go to dst as they are.
bool SameLayout(const Tensor& dst, const Tensor& src) {
  return dst.dtype() == src.dtype() && dst.sizes() == src.sizes() && dst.is_contiguous() &&
         src.is_contiguous();
}

[[noreturn]] void Unsupported(const Tensor& dst, const Tensor& src) {
  const Tensor& dev = dst.is_cpu() ? src : dst;
  ThrowNotImplemented("aten::copy_ (strided or converting device copy)",
                      KeyForDevice(dev.device().type()), dev.dtype());
}

// Note [Cross-device copy]
// Conversions (dtype, broadcasting, layout) happen on the host, where the
// CPU kernels do them; the device side only ever sees one contiguous
// transfer. Device-to-device copies that would need a conversion are the
// device backend's to implement (its own copy_ kernel); here they are an error.
Tensor copy_(const Tensor& self, const Tensor& src, bool non_blocking) {
  CopyMeta(self, src);
  if (self.is_same(src) || self.numel() == 0) return self;
  if (src.is_cpu() && !self.is_cpu()) {  // host -> device
    if (!self.is_contiguous()) Unsupported(self, src);
    Tensor staged = src;
    if (!SameLayout(self, src)) staged = EmptyTensor(self.sizes(), self.dtype(), Device(kCPU)).copy_(src);
    Transfer(self, staged, non_blocking);
  } else if (self.is_cpu() && !src.is_cpu()) {  // device -> host
    if (!src.is_contiguous()) Unsupported(self, src);
    if (SameLayout(self, src)) {
      Transfer(self, src, false);
    } else {
      Tensor staged = EmptyTensor(src.sizes(), src.dtype(), Device(kCPU));
      Transfer(staged, src, false);
      Tensor(self).copy_(staged);
    }
  } else {  // device -> device
    if (!SameLayout(self, src)) Unsupported(self, src);
    Transfer(self, src, non_blocking);
  }
  return self;
}

Tensor to_copy(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
               bool non_blocking) {
  Tensor out = empty(self.sizes(), TensorOptions(dtype.value_or(self.dtype()))
                                       .device(device.value_or(self.device())));
  out.copy_(self, non_blocking);
  return out;
}

// to() returns self when nothing changes (and copy=false), like PyTorch.
Tensor to_device(const Tensor& self, Device device, ScalarType dtype, bool non_blocking, bool copy) {
  if (!copy && self.device() == device && self.dtype() == dtype) return self;
  return _to_copy(self, dtype, device, non_blocking);
}

Tensor to_dtype(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy) {
  if (!copy && self.dtype() == dtype) return self;
  return _to_copy(self, dtype, std::nullopt, non_blocking);
}

Tensor clone(const Tensor& self) {
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  out.copy_(self);
  return out;
}

Tensor contiguous(const Tensor& self) { return self.is_contiguous() ? self : self.clone(); }

}  // namespace

NSIM_LIBRARY_IMPL(aten, CompositeExplicit, m) {
  m.impl("empty.memory_format", &empty_memory_format);
  m.impl("copy_", &copy_);
  m.impl("_to_copy", &to_copy);
  m.impl("to.device", &to_device);
  m.impl("to.dtype", &to_dtype);
  m.impl("clone", &clone);
  m.impl("contiguous", &contiguous);
}

}  // namespace at
}  // namespace nsim
