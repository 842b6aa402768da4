#include "backend/shape.h"

#include <sstream>

#include "sim/base/error.h"

namespace nsim {
namespace at {

int64_t Numel(const IntList& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

IntList ContiguousStrides(const IntList& sizes) {
  IntList strides(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

bool IsContiguous(const IntList& sizes, const IntList& strides) {
  // As in PyTorch, strides of size-1 dims do not matter, and empty tensors are contiguous.
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 0) return true;
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

std::string ShapeToString(const IntList& sizes) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << "]";
  return os.str();
}

int64_t MaybeWrapDim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim == 0 ? 1 : ndim;  // scalars behave as 1-d for dim arguments
  if (dim < -n || dim >= n) {
    throw SimError("Dimension out of range (expected to be in range of [" + std::to_string(-n) +
                   ", " + std::to_string(n - 1) + "], but got " + std::to_string(dim) + ")");
  }
  return dim < 0 ? dim + n : dim;
}

std::vector<bool> DimMask(const IntList& dims, int64_t ndim) {
  std::vector<bool> mask(std::max<int64_t>(ndim, 1), false);
  for (int64_t d : dims) {
    const int64_t w = MaybeWrapDim(d, ndim);
    if (mask[w]) {
      throw SimError("dim " + std::to_string(w) + " appears multiple times in the list of dims");
    }
    mask[w] = true;
  }
  return mask;
}

IntList BroadcastShapes(const IntList& a, const IntList& b) {
  const size_t n = std::max(a.size(), b.size());
  IntList out(n);
  for (size_t i = 0; i < n; ++i) {
    // Align from the right, as numpy does.
    const int64_t ia = static_cast<int64_t>(a.size()) - 1 - static_cast<int64_t>(i);
    const int64_t ib = static_cast<int64_t>(b.size()) - 1 - static_cast<int64_t>(i);
    const int64_t sa = ia >= 0 ? a[ia] : 1;
    const int64_t sb = ib >= 0 ? b[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      throw SimError("The size of tensor a (" + std::to_string(sa) +
                     ") must match the size of tensor b (" + std::to_string(sb) +
                     ") at non-singleton dimension " + std::to_string(n - 1 - i));
    }
    out[n - 1 - i] = sa == 1 ? sb : sa;
  }
  return out;
}

IntList InferSize(const IntList& shape, int64_t numel) {
  IntList out = shape;
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) throw SimError("only one dimension can be inferred");
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      throw SimError("invalid shape dimension " + std::to_string(shape[i]));
    } else {
      known *= shape[i];
    }
  }
  const bool ok = infer >= 0 ? (known > 0 && numel % known == 0) : known == numel;
  if (!ok) {
    throw SimError("shape '" + ShapeToString(shape) + "' is invalid for input of size " +
                   std::to_string(numel));
  }
  if (infer >= 0) out[infer] = numel / known;
  return out;
}

IntList ComputeViewStrides(const IntList& old_sizes, const IntList& old_strides,
                           const IntList& new_sizes, bool* ok) {
  *ok = true;
  if (old_sizes.empty()) return IntList(new_sizes.size(), 1);
  if (Numel(old_sizes) == 0) return ContiguousStrides(new_sizes);
  // Walk the old dims from the back, grouping runs that are contiguous with
  // each other ("chunks"); each chunk must be split exactly by the new dims.
  IntList new_strides(new_sizes.size());
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    const bool chunk_ends = d == 0 || (old_sizes[d - 1] != 1 &&
                                       old_strides[d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
      new_strides[view_d] = view_numel * chunk_base_stride;
      view_numel *= new_sizes[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) {
      *ok = false;
      return {};
    }
    if (d > 0) {
      chunk_base_stride = old_strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) {
    *ok = false;
    return {};
  }
  return new_strides;
}

}  // namespace at
}  // namespace nsim
