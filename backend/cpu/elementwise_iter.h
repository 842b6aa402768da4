#pragma once
// ElementwiseIter: the one broadcasting iterator every CPU kernel uses
// (pointwise ops, copies, reductions, norms). It walks an iteration shape in
// row-major order and hands the callback one pointer per operand. Each operand
// is aligned to the shape from the right, as broadcasting does; a size-1 or
// missing dim gets byte stride 0, so the same element is reused.
//
//   ElementwiseIter it(out.sizes());
//   it.Add(out); it.Add(a); it.Add(b);                  // a, b broadcast to out
//   it.ForEach([&](char* const* p) { ... p[0], p[1], p[2] ... });
//
// Reductions use it the other way round: iterate the *input* shape and add the
// accumulator with size 1 along reduced dims, so stride 0 folds them together.
#include <array>
#include <cstdint>

#include "backend/tensor.h"
#include "sim/base/error.h"

namespace nsim {
namespace at {

class ElementwiseIter {
 public:
  static constexpr int kMaxOperands = 4;

  explicit ElementwiseIter(IntList shape) : shape_(std::move(shape)) {}

  // Contract: `sizes` must broadcast to the iteration shape. `data` points at
  // element 0; strides are in elements of `element_size` bytes.
  void Add(void* data, const IntList& sizes, const IntList& strides, int64_t element_size);
  void Add(const Tensor& t) { Add(t.data_ptr(), t.sizes(), t.strides(), t.element_size()); }

  template <class F>
  void ForEach(F&& f) const;

  // The same walk one innermost row at a time: f(p, strides, n) with p the
  // operands' pointers at the row's first element, strides their byte
  // strides along the row and n its length, so a kernel can take a
  // contiguous row as a plain loop the compiler vectorises.
  template <class F>
  void ForEachRow(F&& f) const;

 private:
  IntList shape_;
  int n_ = 0;
  std::array<char*, kMaxOperands> base_{};
  std::array<IntList, kMaxOperands> strides_;  // bytes, one per shape dim
};

template <class F>
void ElementwiseIter::ForEachRow(F&& f) const {
  const int64_t nd = static_cast<int64_t>(shape_.size());
  if (Numel(shape_) == 0) return;
  std::array<char*, kMaxOperands> row = base_;
  std::array<int64_t, kMaxOperands> inner_stride{};
  if (nd == 0) {
    f(row.data(), inner_stride.data(), int64_t{1});
    return;
  }
  const int64_t inner = shape_[nd - 1];
  for (int k = 0; k < n_; ++k) inner_stride[k] = strides_[k][nd - 1];
  IntList index(nd, 0);
  while (true) {
    f(row.data(), inner_stride.data(), inner);
    // Odometer over the outer dims.
    int64_t d = nd - 2;
    for (; d >= 0; --d) {
      for (int k = 0; k < n_; ++k) row[k] += strides_[k][d];
      if (++index[d] < shape_[d]) break;
      for (int k = 0; k < n_; ++k) row[k] -= strides_[k][d] * shape_[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

template <class F>
void ElementwiseIter::ForEach(F&& f) const {
  ForEachRow([&](char* const* row, const int64_t* stride, int64_t n) {
    std::array<char*, kMaxOperands> p{};
    for (int k = 0; k < n_; ++k) p[k] = row[k];
    for (int64_t i = 0; i < n; ++i) {
      f(p.data());
      for (int k = 0; k < n_; ++k) p[k] += stride[k];
    }
  });
}

}  // namespace at
}  // namespace nsim
