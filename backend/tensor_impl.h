#pragma once
// TensorImpl: the metadata of one tensor (sizes, strides, storage offset, dtype)
// over a shared Storage. Views make new TensorImpls over the same Storage.
// Invariant: sizes and strides have the same length; strides are in elements.
#include <cstdint>

#include "backend/scalar_type.h"
#include "backend/shape.h"
#include "backend/storage.h"

namespace nsim {
namespace at {

class TensorImpl {
 public:
  TensorImpl(Storage storage, IntList sizes, IntList strides, int64_t storage_offset,
             ScalarType dtype);

  const IntList& sizes() const { return sizes_; }
  const IntList& strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_.device(); }
  const Storage& storage() const { return storage_; }
  bool is_contiguous() const { return is_contiguous_; }

  // Address of element 0 (storage base + offset); opaque for device tensors.
  void* data() const {
    return static_cast<char*>(storage_.data()) + storage_offset_ * ElementSize(dtype_);
  }

  // A "wrapped number" is a 0-dim tensor made from a Python scalar (`x + 1e-6`).
  // It takes part in type promotion as a scalar, not as a tensor (see
  // type_promotion.h), and keeps that role when copied to a device.
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool v) { wrapped_number_ = v; }

 private:
  Storage storage_;
  IntList sizes_;
  IntList strides_;
  int64_t storage_offset_;
  int64_t numel_;
  ScalarType dtype_;
  bool is_contiguous_;
  bool wrapped_number_ = false;
};

}  // namespace at
}  // namespace nsim
