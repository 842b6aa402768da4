#include "torch_nsim/csrc/bridge.h"

#include <c10/core/TensorImpl.h>

#include "backend/factories.h"
#include "backend/tensor_impl.h"
#include "backend/type_promotion.h"

namespace torch_nsim {

namespace nat = nsim::at;

nat::ScalarType ToNsim(c10::ScalarType t, const std::string& what) {
  switch (t) {
    case c10::kFloat: return nat::kFloat;
    case c10::kBFloat16: return nat::kBFloat16;
    case c10::kHalf: return nat::kHalf;
    case c10::kInt: return nat::kInt;
    case c10::kShort: return nat::kShort;
    case c10::kChar: return nat::kChar;
    case c10::kByte: return nat::kByte;
    case c10::kLong: return nat::kLong;
    case c10::kBool: return nat::kBool;
    default:
      TORCH_CHECK_NOT_IMPLEMENTED(false, what, ": the neuron device holds float32, bfloat16, float16, int64, int32, "
                                  "int16, int8, uint8 and bool tensors, not ", c10::toString(t));
  }
}

c10::ScalarType FromNsim(nat::ScalarType t) {
  switch (t) {
    case nat::ScalarType::Float: return c10::kFloat;
    case nat::ScalarType::BFloat16: return c10::kBFloat16;
    case nat::ScalarType::Half: return c10::kHalf;
    case nat::ScalarType::Int: return c10::kInt;
    case nat::ScalarType::Short: return c10::kShort;
    case nat::ScalarType::Char: return c10::kChar;
    case nat::ScalarType::Byte: return c10::kByte;
    case nat::ScalarType::Long: return c10::kLong;
    case nat::ScalarType::Bool: return c10::kBool;
    default: TORCH_CHECK(false, "torch_nsim: undefined nsim dtype");
  }
}

nat::Device ToNsim(const c10::Device& d) {
  if (d.is_privateuseone()) return nat::Device(nat::kNeuron, d.has_index() ? d.index() : 0);
  TORCH_CHECK(d.is_cpu(), "torch_nsim: tensors must be on cpu or neuron, not ", d.str());
  return nat::Device(nat::kCPU);
}

c10::Device FromNsim(const nat::Device& d) {
  if (d.type() == nat::kNeuron) return c10::Device(c10::DeviceType::PrivateUse1, d.index() < 0 ? 0 : d.index());
  return c10::Device(c10::kCPU);
}

// A Python number torch wrapped as a 0-dim CPU tensor (double or int64):
// the same number as nsim wraps it (float32 / int32, int64 beyond int32),
// still a wrapped number.
// Read straight from host memory: t.item() would be a dispatched op of its
// own (an aten::item row in the profile).
nat::Tensor WrappedNumber(const at::Tensor& t) {
  const bool is_float = t.scalar_type() == c10::kDouble;
  const void* p = t.const_data_ptr();
  const nat::Scalar v = is_float ? nat::Scalar(*static_cast<const double*>(p))
                                 : nat::Scalar(*static_cast<const int64_t*>(p));
  nat::Tensor out = nat::WrappedScalarTensor(v);  // float32, int32, or int64 beyond int32
  out.unsafeGetTensorImpl()->set_wrapped_number(t.unsafeGetTensorImpl()->is_wrapped_number());
  return out;
}

nat::Tensor ToNsim(const at::Tensor& t, const std::string& what, bool numbers) {
  if (!t.defined()) return nat::Tensor();
  if (numbers && t.is_cpu() && t.dim() == 0 && (t.scalar_type() == c10::kDouble || t.scalar_type() == c10::kLong)) {
    return WrappedNumber(t);
  }
  const nat::ScalarType dtype = ToNsim(t.scalar_type(), what);
  const c10::Storage& storage = t.storage();
  // The deleter holds a reference to the torch storage: the memory lives as
  // long as any nsim view of it.
  nat::DataPtr owner(nullptr, [keep = storage](void*) {});
  nat::Storage s = nat::Storage::Wrap(storage.mutable_data(), storage.nbytes(), ToNsim(t.device()), owner);
  nat::IntList sizes(t.sizes().begin(), t.sizes().end());
  nat::IntList strides(t.strides().begin(), t.strides().end());
  auto impl = std::make_shared<nat::TensorImpl>(s, sizes, strides, t.storage_offset(), dtype);
  impl->set_wrapped_number(t.unsafeGetTensorImpl()->is_wrapped_number());
  return nat::Tensor(impl);
}

at::Tensor FromNsim(const nat::Tensor& t) {
  if (!t.defined()) return at::Tensor();
  const nat::Storage& s = t.storage();
  const c10::Device device = FromNsim(s.device());
  auto* keep = new nat::Storage(s);
  c10::DataPtr data(s.data(), keep, [](void* p) { delete static_cast<nat::Storage*>(p); }, device);
  c10::Storage storage(c10::Storage::use_byte_size_t(), s.nbytes(), std::move(data), /*allocator=*/nullptr,
                       /*resizable=*/false);
  const c10::DispatchKeySet keys(device.is_cpu() ? c10::DispatchKey::CPU : c10::DispatchKey::PrivateUse1);
  at::Tensor out = at::detail::make_tensor<c10::TensorImpl>(std::move(storage), keys,
                                                            caffe2::TypeMeta::fromScalarType(FromNsim(t.dtype())));
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end()), strides(t.strides().begin(), t.strides().end());
  out.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides, t.storage_offset());
  return out;
}

}  // namespace torch_nsim
