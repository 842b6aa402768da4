#include "backend/composite/view_ops.h"

#include "backend/empty_tensor.h"
#include "backend/library.h"

namespace nsim {
namespace at {
namespace view {

Tensor View(const Tensor& self, const IntList& size) {
  const IntList shape = InferSize(size, self.numel());
  bool ok = false;
  IntList strides = ComputeViewStrides(self.sizes(), self.strides(), shape, &ok);
  if (!ok) {
    throw SimError("view size is not compatible with input tensor's size and stride (at least one "
                   "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  }
  return MakeView(self, shape, std::move(strides), self.storage_offset());
}

Tensor Transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  const int64_t nd = self.dim();
  const int64_t a = MaybeWrapDim(dim0, nd), b = MaybeWrapDim(dim1, nd);
  if (nd == 0) return MakeView(self, {}, {}, self.storage_offset());
  IntList sizes = self.sizes(), strides = self.strides();
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return MakeView(self, std::move(sizes), std::move(strides), self.storage_offset());
}

Tensor Permute(const Tensor& self, const IntList& dims) {
  const int64_t nd = self.dim();
  if (static_cast<int64_t>(dims.size()) != nd) {
    throw SimError("permute(sparse_coo): number of dimensions in the tensor input does not match "
                   "the length of the desired ordering of dimensions i.e. input.dim() = " +
                   std::to_string(nd) + " is not equal to len(dims) = " +
                   std::to_string(dims.size()));
  }
  DimMask(dims, nd);  // rejects repeats
  IntList sizes(nd), strides(nd);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t d = MaybeWrapDim(dims[i], nd);
    sizes[i] = self.size(d);
    strides[i] = self.stride(d);
  }
  return MakeView(self, std::move(sizes), std::move(strides), self.storage_offset());
}

Tensor Unsqueeze(const Tensor& self, int64_t dim) {
  const int64_t d = MaybeWrapDim(dim, self.dim() + 1);
  IntList sizes = self.sizes(), strides = self.strides();
  // The new dim's stride makes the result contiguous when the input is.
  const int64_t stride = d >= self.dim() ? 1 : sizes[d] * strides[d];
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return MakeView(self, std::move(sizes), std::move(strides), self.storage_offset());
}

Tensor Squeeze(const Tensor& self) {
  IntList sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.size(d) == 1) continue;
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d));
  }
  return MakeView(self, std::move(sizes), std::move(strides), self.storage_offset());
}

Tensor SqueezeDim(const Tensor& self, int64_t dim) {
  const int64_t d = MaybeWrapDim(dim, self.dim());
  if (self.dim() == 0 || self.size(d) != 1) return MakeView(self, self.sizes(), self.strides(), self.storage_offset());
  IntList sizes = self.sizes(), strides = self.strides();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return MakeView(self, std::move(sizes), std::move(strides), self.storage_offset());
}

Tensor Slice(const Tensor& self, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> end, int64_t step) {
  if (self.dim() == 0) throw SimError("slice() cannot be applied to a 0-dim tensor.");
  if (step <= 0) throw SimError("slice step must be positive");
  const int64_t d = MaybeWrapDim(dim, self.dim());
  const int64_t n = self.size(d);
  // Python slice semantics: negative from the end, then clamped to [0, n].
  auto clamp = [n](int64_t v) {
    if (v < 0) v += n;
    return std::min(std::max<int64_t>(v, 0), n);
  };
  const int64_t s = clamp(start.value_or(0));
  const int64_t e = std::max(s, clamp(end.value_or(n)));
  IntList sizes = self.sizes(), strides = self.strides();
  sizes[d] = (e - s + step - 1) / step;
  strides[d] *= step;
  return MakeView(self, std::move(sizes), std::move(strides),
                  self.storage_offset() + s * self.stride(d));
}

Tensor Narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  if (self.dim() == 0) throw SimError("narrow() cannot be applied to a 0-dim tensor.");
  const int64_t d = MaybeWrapDim(dim, self.dim());
  const int64_t n = self.size(d);
  if (start < 0) start += n;
  if (start < 0 || length < 0 || start + length > n) {
    throw SimError("start (" + std::to_string(start) + ") + length (" + std::to_string(length) +
                   ") exceeds dimension size (" + std::to_string(n) + ").");
  }
  return Slice(self, d, start, start + length, 1);
}

Tensor Select(const Tensor& self, int64_t dim, int64_t index) {
  if (self.dim() == 0) throw SimError("select() cannot be applied to a 0-dim tensor.");
  const int64_t d = MaybeWrapDim(dim, self.dim());
  const int64_t n = self.size(d);
  if (index < -n || index >= n) {
    throw SimError("select(): index " + std::to_string(index) + " out of range for tensor of size " +
                   ShapeToString(self.sizes()) + " at dimension " + std::to_string(d));
  }
  if (index < 0) index += n;
  IntList sizes = self.sizes(), strides = self.strides();
  const int64_t offset = self.storage_offset() + index * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return MakeView(self, std::move(sizes), std::move(strides), offset);
}

Tensor Expand(const Tensor& self, const IntList& size) {
  const int64_t nd = static_cast<int64_t>(size.size());
  if (nd < self.dim()) {
    throw SimError("expand(" + std::string(ToString(self.dtype())) + ShapeToString(self.sizes()) +
                   ", size=" + ShapeToString(size) + "): the number of sizes provided (" + std::to_string(nd) +
                   ") must be greater or equal to the number of dimensions in the tensor (" +
                   std::to_string(self.dim()) + ")");
  }
  IntList sizes(nd), strides(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    const int64_t j = i - (nd - self.dim());  // matching input dim, or < 0 for a new leading dim
    const int64_t have = j >= 0 ? self.size(j) : 1;
    int64_t want = size[i] == -1 ? have : size[i];
    if (size[i] == -1 && j < 0) throw SimError("The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension " + std::to_string(i));
    if (have != want && have != 1) {
      throw SimError("The expanded size of the tensor (" + std::to_string(want) +
                     ") must match the existing size (" + std::to_string(have) +
                     ") at non-singleton dimension " + std::to_string(i) + ".  Target sizes: " +
                     ShapeToString(size) + ".  Tensor sizes: " + ShapeToString(self.sizes()));
    }
    sizes[i] = want;
    strides[i] = (j >= 0 && have == want) ? self.stride(j) : 0;
  }
  return MakeView(self, std::move(sizes), std::move(strides), self.storage_offset());
}

}  // namespace view

namespace {

Tensor view_kernel(const Tensor& self, const IntList& size) { return view::View(self, size); }

// reshape is a view when the layout allows it, else a copy (PyTorch semantics).
Tensor reshape_kernel(const Tensor& self, const IntList& shape) {
  const IntList sizes = InferSize(shape, self.numel());
  bool ok = false;
  IntList strides = ComputeViewStrides(self.sizes(), self.strides(), sizes, &ok);
  if (ok) return MakeView(self, sizes, std::move(strides), self.storage_offset());
  return view::View(self.clone(), sizes);
}

Tensor transpose_kernel(const Tensor& self, int64_t d0, int64_t d1) { return view::Transpose(self, d0, d1); }

Tensor t_kernel(const Tensor& self) {
  if (self.dim() > 2) {
    throw SimError("t() expects a tensor with <= 2 dimensions, but self is " +
                   std::to_string(self.dim()) + "D");
  }
  return self.dim() < 2 ? view::Permute(self, self.dim() == 1 ? IntList{0} : IntList{})
                        : view::Transpose(self, 0, 1);
}

Tensor permute_kernel(const Tensor& self, const IntList& dims) { return view::Permute(self, dims); }
Tensor unsqueeze_kernel(const Tensor& self, int64_t dim) { return view::Unsqueeze(self, dim); }
Tensor squeeze_kernel(const Tensor& self) { return view::Squeeze(self); }
Tensor squeeze_dim_kernel(const Tensor& self, int64_t dim) { return view::SqueezeDim(self, dim); }
Tensor slice_kernel(const Tensor& self, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> end, int64_t step) {
  return view::Slice(self, dim, start, end, step);
}
Tensor narrow_kernel(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return view::Narrow(self, dim, start, length);
}
Tensor select_kernel(const Tensor& self, int64_t dim, int64_t index) { return view::Select(self, dim, index); }
Tensor expand_kernel(const Tensor& self, const IntList& size, bool /*implicit*/) {
  return view::Expand(self, size);
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CompositeExplicit, m) {
  m.impl("view", &view_kernel);
  m.impl("reshape", &reshape_kernel);
  m.impl("transpose.int", &transpose_kernel);
  m.impl("t", &t_kernel);
  m.impl("permute", &permute_kernel);
  m.impl("unsqueeze", &unsqueeze_kernel);
  m.impl("squeeze", &squeeze_kernel);
  m.impl("squeeze.dim", &squeeze_dim_kernel);
  m.impl("slice.Tensor", &slice_kernel);
  m.impl("narrow", &narrow_kernel);
  m.impl("select.int", &select_kernel);
  m.impl("expand", &expand_kernel);
}

}  // namespace at
}  // namespace nsim
