#include "backend/neuron/hbm_tensor.h"

#include "backend/dispatcher.h"
#include "backend/tensor_impl.h"
#include "runtime/runtime.h"

namespace nsim {
namespace neuron {

int CoreIndex(const at::Device& d) { return d.index() < 0 ? 0 : d.index(); }

rt::NeuronCoreDevice& CoreOf(const at::Device& d) { return rt::Runtime::Get().core(CoreIndex(d)); }

uint64_t StorageAddress(const at::Storage& s) { return reinterpret_cast<uint64_t>(s.data()); }

uint64_t ElementAddress(const at::Tensor& t) {
  return StorageAddress(t.storage()) + static_cast<uint64_t>(t.storage_offset() * t.element_size());
}

codegen::TensorDesc DescOf(const at::Tensor& t) {
  codegen::TensorDesc d;
  d.dtype = at::ToSimDType(t.dtype());
  d.sizes.assign(t.sizes().begin(), t.sizes().end());
  d.strides.assign(t.strides().begin(), t.strides().end());
  return d;
}

at::Tensor ReinterpretAs(const at::Tensor& t, at::ScalarType dtype, int64_t word) {
  const int64_t ratio = t.element_size() / at::ElementSize(dtype);
  at::IntList strides(t.strides().begin(), t.strides().end());
  for (int64_t& s : strides) s *= ratio;
  return at::Tensor(std::make_shared<at::TensorImpl>(t.storage(), t.sizes(), strides,
                                                     t.storage_offset() * ratio + word, dtype));
}

void RequireFloat(const std::string& op_full_name, at::ScalarType dtype) {
  if (!at::IsFloatingType(dtype)) at::ThrowNotImplemented(op_full_name, at::DispatchKey::Neuron, dtype);
}

void RequireDeviceType(const std::string& op_full_name, at::ScalarType dtype) {
  if (dtype == at::kBool) at::ThrowNotImplemented(op_full_name, at::DispatchKey::Neuron, dtype);
}

}  // namespace neuron
}  // namespace nsim
