#pragma once
// Row-wise ops (reductions, softmax, norms) run on [rows..., n] layouts: the
// dims the op works along are moved last and merged into one dim of n
// elements, which is a strided view (no copy) when those dims form one
// strided block. Otherwise the op first makes a copy in that order.
#include <cstdint>
#include <vector>

#include "backend/neuron/codegen/tensor_desc.h"
#include "backend/tensor.h"

namespace nsim {
namespace neuron {

struct RowLayout {
  at::Tensor tensor;          // the tensor the desc describes (the input, or a reordered copy)
  codegen::TensorDesc desc;   // [kept dims..., n]
  std::vector<int64_t> kept;  // sizes of the kept dims, in order
  int64_t n = 1;
};

// `dims` (distinct, non-negative) are the dims to merge last, in order.
RowLayout RowsOver(const at::Tensor& t, const std::vector<int64_t>& dims);

// [kept..., 1] contiguous: how a row op writes a contiguous output whose
// reduced dims have size 1 or were removed.
codegen::TensorDesc ReducedDesc(const RowLayout& l, at::ScalarType dtype);
// [kept..., n] contiguous in the kept-then-merged order (for outputs shaped
// like the input when `dims` are its trailing dims).
codegen::TensorDesc FullDesc(const RowLayout& l, at::ScalarType dtype);

}  // namespace neuron
}  // namespace nsim
