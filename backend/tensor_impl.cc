#include "backend/tensor_impl.h"

#include "sim/base/error.h"

namespace nsim {
namespace at {

TensorImpl::TensorImpl(Storage storage, IntList sizes, IntList strides, int64_t storage_offset,
                       ScalarType dtype)
    : storage_(std::move(storage)),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      storage_offset_(storage_offset),
      numel_(Numel(sizes_)),
      dtype_(dtype),
      is_contiguous_(IsContiguous(sizes_, strides_)) {
  if (sizes_.size() != strides_.size()) {
    throw SimError("TensorImpl: sizes " + ShapeToString(sizes_) + " and strides " +
                   ShapeToString(strides_) + " differ in length");
  }
  for (int64_t s : sizes_) {
    if (s < 0) throw SimError("Trying to create tensor with negative dimension " +
                              std::to_string(s) + ": " + ShapeToString(sizes_));
  }
}

}  // namespace at
}  // namespace nsim
