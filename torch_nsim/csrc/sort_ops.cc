// sort (stable, ascending or descending) and topk on neuron, composed from
// the simulator's device kernels by ranking: for each element i of a row,
// its rank is the number of elements j that precede it in the stable order
// (x_j before x_i, or equal with j < i; NaN the largest value, NaNs equal to
// each other, as the CPU's sort). That is one [n x n] compare per row on
// VectorE (n^2 compares, selects and adds), so rows are limited to
// kMaxSortRow elements and longer ones are refused by name. Each element is
// then placed at its rank by a one-hot select (rank == position) and a sum
// over the row (one nonzero term: exact), its index likewise (fp32 holds
// every index below 2^24 exactly), stored int64.
#include <algorithm>
#include <optional>
#include <vector>
#include <tuple>

#include <ATen/ATen.h>
#include <ATen/WrapDimUtils.h>
#include <torch/library.h>

#include "torch_nsim/csrc/out_variant.h"
#include "torch_nsim/csrc/wrapped_number.h"

namespace torch_nsim {
namespace {

using at::Tensor;

// The [n x n] rank compare's row limit: n^2 fp32 intermediates per row.
constexpr int64_t kMaxSortRow = 16384;

// Elements of one block of the [R, n x n] compare: the rows of i (or of
// positions r) are taken in blocks that keep it near 4M elements.
constexpr int64_t kBlockElements = int64_t{1} << 22;

int64_t BlockOf(const Tensor& x) {
  return std::max<int64_t>(1, kBlockElements / std::max<int64_t>(1, x.size(0) * x.size(1)));
}

// x fp32 [R, n]: ranks (fp32 [R, n]) under the stable order.
Tensor Ranks(const Tensor& x, bool descending) {
  const int64_t n = x.size(1), b = BlockOf(x);
  const Tensor pos = at::arange(n, x.options());
  const Tensor xj = x.unsqueeze(1), nj = at::isnan(xj);  // [R, 1, n]
  // less(a, b): a < b with NaN the largest (a < b is false if either is NaN).
  auto less = [](const Tensor& a, const Tensor& b, const Tensor& na, const Tensor& nb) {
    return at::logical_or(at::lt(a, b), at::logical_and(at::logical_not(na), nb));
  };
  std::vector<Tensor> parts;
  for (int64_t i0 = 0; i0 < n; i0 += b) {
    const int64_t m = std::min(b, n - i0);
    const Tensor xi = x.narrow(1, i0, m).unsqueeze(2), ni = at::isnan(xi);  // [R, m, 1]
    const Tensor before = descending ? less(xi, xj, ni, nj) : less(xj, xi, nj, ni);  // x_j strictly first
    const Tensor equal = at::logical_or(at::eq(xj, xi), at::logical_and(ni, nj));
    const Tensor earlier = at::lt(pos.reshape({1, 1, n}), pos.narrow(0, i0, m).reshape({1, m, 1}));  // j < i
    const Tensor precedes = at::logical_or(before, at::logical_and(equal, earlier));
    parts.push_back(at::sum(precedes.to(c10::kFloat), {2}));
  }
  return parts.size() == 1 ? parts[0] : at::cat(parts, 1);
}

// Row values v (fp32 [R, n]) placed at their ranks: for each position r the
// one element whose rank is r (a one-hot select and a sum: exact).
Tensor Place(const Tensor& v, const Tensor& rank) {
  const int64_t n = v.size(1), b = BlockOf(v);
  const Tensor pos = at::arange(n, v.options());
  std::vector<Tensor> parts;
  for (int64_t r0 = 0; r0 < n; r0 += b) {
    const int64_t m = std::min(b, n - r0);
    const Tensor at_pos = at::eq(rank.unsqueeze(2), pos.narrow(0, r0, m).reshape({1, 1, m}));  // [R, i, r]
    parts.push_back(at::sum(at::where(at_pos, v.unsqueeze(2), Wrapped(-0.0)), {1}));
  }
  return parts.size() == 1 ? parts[0] : at::cat(parts, 1);
}

std::tuple<Tensor, Tensor> SortRows(const Tensor& self, int64_t dim, bool descending, const char* op) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()), op, " on neuron: floating dtypes only, not ",
                              self.scalar_type());
  const Tensor s = self.dim() == 0 ? self.reshape({1}) : self;
  const int64_t d = at::maybe_wrap_dim(dim, s.dim());
  const int64_t n = s.size(d);
  TORCH_CHECK_NOT_IMPLEMENTED(n <= kMaxSortRow, op, " on neuron: rows of at most ", kMaxSortRow,
                              " elements (an [n x n] rank compare per row), got ", n);
  const Tensor moved = s.movedim(d, -1);
  if (moved.numel() == 0) {
    return {at::empty(self.sizes(), self.options()), at::empty(self.sizes(), self.options().dtype(c10::kLong))};
  }
  const Tensor x = moved.reshape({-1, n}).to(c10::kFloat);
  const Tensor rank = Ranks(x, descending);                                    // [R, n]
  const Tensor values = Place(x, rank);
  const Tensor index = Place(at::arange(n, x.options()).expand_as(x), rank);
  Tensor v = values.to(self.scalar_type()).reshape(moved.sizes()).movedim(-1, d);
  Tensor i = index.to(c10::kLong).reshape(moved.sizes()).movedim(-1, d);
  if (self.dim() == 0) return {v.reshape({}), i.reshape({})};
  return {v.contiguous(), i.contiguous()};
}

std::tuple<Tensor, Tensor> SortStable(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  return SortRows(self, dim, descending, "aten::sort");
}

// sort without `stable`: the CPU's default sort is stable too.
std::tuple<Tensor, Tensor> Sort(const Tensor& self, int64_t dim, bool descending) {
  return SortRows(self, dim, descending, "aten::sort");
}

std::tuple<Tensor, Tensor> Topk(const Tensor& self, c10::SymInt k_sym, int64_t dim, bool largest, bool sorted) {
  const int64_t k = k_sym.expect_int();
  const Tensor s = self.dim() == 0 ? self.reshape({1}) : self;
  const int64_t d = at::maybe_wrap_dim(dim, s.dim());
  TORCH_CHECK(k >= 0 && k <= s.size(d), "selected index k out of range");
  auto [v, i] = SortRows(self, dim, largest, "aten::topk");
  if (self.dim() == 0) return {v, i};
  return {v.narrow(d, 0, k).contiguous(), i.narrow(d, 0, k).contiguous()};
}

std::tuple<Tensor&, Tensor&> SortStableOut(const Tensor& self, std::optional<bool> stable, int64_t dim,
                                           bool descending, Tensor& values, Tensor& indices) {
  return CopyPair(SortStable(self, stable, dim, descending), values, indices);
}
std::tuple<Tensor&, Tensor&> SortOut(const Tensor& self, int64_t dim, bool descending, Tensor& values,
                                     Tensor& indices) {
  return CopyPair(Sort(self, dim, descending), values, indices);
}
std::tuple<Tensor&, Tensor&> TopkOut(const Tensor& self, c10::SymInt k, int64_t dim, bool largest, bool sorted,
                                     Tensor& values, Tensor& indices) {
  return CopyPair(Topk(self, k, dim, largest, sorted), values, indices);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("sort.stable", &SortStable);
  m.impl("sort.values_stable", &SortStableOut);
  m.impl("sort", &Sort);
  m.impl("sort.values", &SortOut);
  m.impl("topk", &Topk);
  m.impl("topk.values", &TopkOut);
}

}  // namespace torch_nsim
