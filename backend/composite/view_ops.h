#pragma once
// View ops: new sizes/strides/offset over the same storage, never a copy
// (reshape and contiguous copy only when they must, through clone()). They
// are registered at CompositeExplicit, so they serve CPU, Neuron and Meta
// tensors alike; kernels call these functions directly to avoid dispatch.
//
//   Tensor t = view::Transpose(x, 0, 1);   // t.is_contiguous() == false
#include <optional>

#include "backend/tensor.h"

namespace nsim {
namespace at {
namespace view {

Tensor View(const Tensor& self, const IntList& size);
Tensor Transpose(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor Permute(const Tensor& self, const IntList& dims);
Tensor Unsqueeze(const Tensor& self, int64_t dim);
Tensor Squeeze(const Tensor& self);
Tensor SqueezeDim(const Tensor& self, int64_t dim);
Tensor Slice(const Tensor& self, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> end, int64_t step);
Tensor Narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor Select(const Tensor& self, int64_t dim, int64_t index);
Tensor Expand(const Tensor& self, const IntList& size);

}  // namespace view
}  // namespace at
}  // namespace nsim
