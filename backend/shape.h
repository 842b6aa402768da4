#pragma once
// Shape arithmetic shared by views, kernels and shape (Meta) functions, with
// PyTorch's error messages, so every backend reports mismatches the same way.
//
//   BroadcastShapes({4, 1}, {3})        -> {4, 3}
//   MaybeWrapDim(-1, 2)                 -> 1
//   InferSize({-1, 4}, 8)               -> {2, 4}
#include <cstdint>
#include <string>
#include <vector>

namespace nsim {
namespace at {

using IntList = std::vector<int64_t>;

int64_t Numel(const IntList& sizes);
IntList ContiguousStrides(const IntList& sizes);
bool IsContiguous(const IntList& sizes, const IntList& strides);
std::string ShapeToString(const IntList& sizes);  // "[4, 512]"

// Python-style negative dims; throws "Dimension out of range (expected to be
// in range of [-2, 1], but got 2)". A 0-dim tensor accepts dims -1 and 0.
int64_t MaybeWrapDim(int64_t dim, int64_t ndim);
// Wraps a list of dims and rejects repeats ("dim 1 appears multiple times in the list of dims").
std::vector<bool> DimMask(const IntList& dims, int64_t ndim);

// Throws "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1".
IntList BroadcastShapes(const IntList& a, const IntList& b);

// Resolves one -1 in a view/reshape shape; throws "shape '[3, 5]' is invalid for input of size 16".
IntList InferSize(const IntList& shape, int64_t numel);

// Strides that view `old_sizes`/`old_strides` as `new_sizes` without copying,
// or an empty result (with ok=false) when the memory layout does not allow it
// (PyTorch's computeStride).
IntList ComputeViewStrides(const IntList& old_sizes, const IntList& old_strides,
                           const IntList& new_sizes, bool* ok);

}  // namespace at
}  // namespace nsim
