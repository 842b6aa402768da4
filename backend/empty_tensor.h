#pragma once
// Tensor construction below the dispatcher, for kernels and views: a fresh
// contiguous tensor on a device (through its registered allocator), and a
// view of an existing tensor's storage. User code calls empty()/view() in
// ops.h instead, which are dispatched and observed.
#include "backend/tensor.h"

namespace nsim {
namespace at {

// Contiguous, uninitialised; on a Meta device the storage has no data.
Tensor EmptyTensor(const IntList& sizes, ScalarType dtype, Device device);

// A tensor over `base`'s storage with the given geometry (no bounds check
// beyond what the view ops do).
Tensor MakeView(const Tensor& base, IntList sizes, IntList strides, int64_t storage_offset);

}  // namespace at
}  // namespace nsim
