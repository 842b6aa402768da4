#include "backend/empty_tensor.h"

namespace nsim {
namespace at {

Tensor EmptyTensor(const IntList& sizes, ScalarType dtype, Device device) {
  IntList strides = ContiguousStrides(sizes);
  const size_t nbytes = static_cast<size_t>(Numel(sizes) * ElementSize(dtype));
  Storage storage = Storage::Allocate(nbytes, device);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), sizes, std::move(strides), 0, dtype));
}

Tensor MakeView(const Tensor& base, IntList sizes, IntList strides, int64_t storage_offset) {
  return Tensor(std::make_shared<TensorImpl>(base.storage(), std::move(sizes), std::move(strides),
                                             storage_offset, base.dtype()));
}

}  // namespace at
}  // namespace nsim
