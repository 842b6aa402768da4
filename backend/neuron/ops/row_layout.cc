#include "backend/neuron/ops/row_layout.h"

#include <algorithm>
#include <optional>

#include "backend/neuron/hbm_tensor.h"
#include "backend/ops.h"

namespace nsim {
namespace neuron {
namespace {

std::vector<int64_t> Order(const at::Tensor& t, const std::vector<int64_t>& dims) {
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) perm.push_back(d);
  }
  perm.insert(perm.end(), dims.begin(), dims.end());
  return perm;
}

// The merged desc, or nothing when `dims` are not one strided block.
std::optional<RowLayout> TryMerge(const at::Tensor& t, const std::vector<int64_t>& dims) {
  RowLayout l;
  l.tensor = t;
  l.desc.dtype = at::ToSimDType(t.dtype());
  for (int64_t d : Order(t, std::vector<int64_t>(dims))) {
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
    l.kept.push_back(t.size(d));
    l.desc.sizes.push_back(t.size(d));
    l.desc.strides.push_back(t.stride(d));
  }
  int64_t stride = 1, inner = -1;  // inner: stride of the innermost merged dim seen so far
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    const int64_t size = t.size(*it);
    if (size == 1) continue;
    if (inner >= 0 && t.stride(*it) != stride * l.n) return std::nullopt;
    if (inner < 0) stride = inner = t.stride(*it);
    l.n *= size;
  }
  l.desc.sizes.push_back(l.n);
  l.desc.strides.push_back(stride);
  return l;
}

}  // namespace

RowLayout RowsOver(const at::Tensor& t, const std::vector<int64_t>& dims) {
  if (std::optional<RowLayout> l = TryMerge(t, dims)) return *l;
  // Not one block: copy in [kept..., dims...] order, where they are.
  std::vector<int64_t> perm = Order(t, dims);
  const at::Tensor c = t.permute(at::IntList(perm.begin(), perm.end())).contiguous();
  std::vector<int64_t> last;
  for (size_t i = perm.size() - dims.size(); i < perm.size(); ++i) last.push_back(static_cast<int64_t>(i));
  return *TryMerge(c, last);
}

codegen::TensorDesc ReducedDesc(const RowLayout& l, at::ScalarType dtype) {
  std::vector<int64_t> sizes = l.kept;
  sizes.push_back(1);
  return codegen::TensorDesc::Contiguous(at::ToSimDType(dtype), sizes);
}

codegen::TensorDesc FullDesc(const RowLayout& l, at::ScalarType dtype) {
  std::vector<int64_t> sizes = l.kept;
  sizes.push_back(l.n);
  return codegen::TensorDesc::Contiguous(at::ToSimDType(dtype), sizes);
}

}  // namespace neuron
}  // namespace nsim
