#pragma once
// Tensor: the user-facing handle, shaped like at::Tensor. Copying a Tensor
// copies the handle (both alias the same TensorImpl); ops return new tensors.
// Every method that computes or views goes through the dispatcher, so it is
// seen by observers (profiler) and runs on the tensor's device.
//
//   Tensor x = randn({4, 512}, /*seed=*/0, kBFloat16);
//   Tensor y = x.to(Device("neuron:0")).mul(2.0).cpu();
//   float v = y.at<float>({0, 3});
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>

#include "backend/device.h"
#include "backend/scalar.h"
#include "backend/scalar_type.h"
#include "backend/shape.h"
#include "backend/tensor_impl.h"
#include "sim/base/error.h"

namespace nsim {
namespace at {

class Tensor {
 public:
  Tensor() = default;  // undefined tensor (an absent optional output)
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  // --- metadata (no dispatch) ---
  const IntList& sizes() const { return impl_->sizes(); }
  const IntList& strides() const { return impl_->strides(); }
  int64_t size(int64_t dim) const;    // negative dims wrap
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return impl_->dim(); }
  int64_t numel() const { return impl_->numel(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  ScalarType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_meta() const { return device().is_meta(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  int64_t element_size() const { return ElementSize(dtype()); }
  int64_t nbytes() const { return numel() * element_size(); }
  const Storage& storage() const { return impl_->storage(); }
  void* data_ptr() const { return impl_->data(); }
  // Typed host pointer; throws if the tensor is not on the CPU or T does not match dtype().
  template <class T> T* data_ptr() const;

  // --- element access on CPU tensors ---
  // Reads the single element (copies to the host first if needed).
  Scalar item() const;
  template <class T> T item() const { return static_cast<T>(item().toDouble()); }
  // Reads / writes one element by index; CPU only (throws otherwise).
  template <class T = double> T at(const IntList& index) const {
    return static_cast<T>(ReadElement(index));
  }
  void set(const IntList& index, double value) const;
  Tensor operator[](int64_t index) const { return select(0, index); }

  // --- conversion and copies (dispatched: aten::to, aten::_to_copy, aten::copy_) ---
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor cpu() const { return to(Device(kCPU)); }
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  Tensor& fill_(const Scalar& value);

  // --- views (share storage; PyTorch semantics) ---
  Tensor view(const IntList& size) const;
  Tensor reshape(const IntList& shape) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor permute(const IntList& dims) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor expand(const IntList& size) const;

  // --- math (methods mirror the free functions in ops.h) ---
#define NSIM_BINARY_ALPHA(name)                                                   \
  Tensor name(const Tensor& other, const Scalar& alpha = 1) const;  \
  Tensor name(const Scalar& other, const Scalar& alpha = 1) const;
#define NSIM_BINARY_SCALAR(name)                        \
  Tensor name(const Tensor& other) const;  \
  Tensor name(const Scalar& other) const;
#define NSIM_BINARY_PLAIN(name) Tensor name(const Tensor& other) const;
#define NSIM_BINARY_EXPONENT NSIM_BINARY_PLAIN
#define NSIM_BINARY_OP(name, Name, form, ...) NSIM_BINARY_##form(name)
#include "backend/binary_ops.def"
#undef NSIM_BINARY_ALPHA
#undef NSIM_BINARY_SCALAR
#undef NSIM_BINARY_PLAIN
#undef NSIM_BINARY_EXPONENT
  Tensor pow(const Scalar& exponent) const;
#define NSIM_UNARY_OP(name, ...) Tensor name() const;
#include "backend/unary_ops.def"
  Tensor square() const;
#define NSIM_REDUCTION_DTYPE(name)                                       \
  Tensor name(std::optional<ScalarType> dtype = std::nullopt) const; \
  Tensor name(const IntList& dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
#define NSIM_REDUCTION_PLAIN(name) Tensor name(const IntList& dim = {}, bool keepdim = false) const;
#define NSIM_REDUCTION_OP(name, Name, form, ...) NSIM_REDUCTION_##form(name)
#include "backend/reduction_ops.def"
#undef NSIM_REDUCTION_DTYPE
#undef NSIM_REDUCTION_PLAIN
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor var(const IntList& dim, double correction = 1, bool keepdim = false) const;
  Tensor mm(const Tensor& mat2) const;
  Tensor matmul(const Tensor& other) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;

  std::string toString() const;  // "BFloat16Type{[4, 512]} on neuron:0"

 private:
  double ReadElement(const IntList& index) const;
  std::shared_ptr<TensorImpl> impl_;
};

// Prints like torch: "tensor([[1.0000, 2.5000]], dtype=torch.bfloat16)".
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace at
}  // namespace nsim

#include "backend/element_types.h"

namespace nsim {
namespace at {

template <class T>
T* Tensor::data_ptr() const {
  if (!is_cpu()) throw SimError("data_ptr<T>() requires a CPU tensor, got " + device().str());
  if (ScalarTypeOf<T>::value != dtype()) {
    throw SimError(std::string("expected scalar type ") + ToString(ScalarTypeOf<T>::value) +
                   " but found " + ToString(dtype()));
  }
  return static_cast<T*>(data_ptr());
}

}  // namespace at
}  // namespace nsim
