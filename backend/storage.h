#pragma once
// Storage: a shared, reference-counted byte buffer on one device. Tensors are
// views (sizes, strides, offset) onto a Storage; several tensors may share
// one, which is how view ops alias memory.
//
//   Storage s = Storage::Allocate(64, Device("cpu"));
//   Storage t = s;   // same buffer; freed when the last holder goes
#include <cstddef>
#include <memory>

#include "backend/allocator.h"
#include "backend/device.h"

namespace nsim {
namespace at {

class Storage {
 public:
  Storage() = default;
  // Allocates through the allocator registered for device.type().
  static Storage Allocate(size_t nbytes, Device device);
  // Wraps memory the caller owns (from_blob): `data` is kept alive by `owner`
  // (may be empty when the caller guarantees the lifetime).
  static Storage Wrap(void* data, size_t nbytes, Device device, DataPtr owner);

  bool defined() const { return impl_ != nullptr; }
  void* data() const { return impl_->data; }
  size_t nbytes() const { return impl_->nbytes; }
  Device device() const { return impl_->device; }
  bool is_alias_of(const Storage& o) const { return impl_ == o.impl_; }
  long use_count() const { return impl_.use_count(); }

 private:
  struct Impl {
    DataPtr owner;  // keeps the memory alive
    void* data;
    size_t nbytes;
    Device device;
  };
  explicit Storage(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

}  // namespace at
}  // namespace nsim
