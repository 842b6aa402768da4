// CPU reference kernels for reductions. All of them iterate the input shape
// with ElementwiseIter and fold into an accumulator buffer laid out over the
// keepdim shape: stride 0 along the reduced dims does the folding. Floating
// inputs accumulate in fp32 (ATen's opmath) and round once at the end.
#include <cmath>
#include <limits>

#include "backend/cpu/loops.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/reductions.h"

namespace nsim {
namespace at {
namespace {

// Calls combine(acc&, x) for every input element x, with acc the
// accumulator of the output element x reduces into. Returns the accumulators
// in output (row-major) order.
template <class A, class C, class F>
std::vector<A> Accumulate(const Tensor& self, const ReduceMetaResult& r, A init, F combine) {
  std::vector<A> acc(Numel(r.keepdim_sizes), init);
  ElementwiseIter it(self.sizes());
  it.Add(acc.data(), r.keepdim_sizes, ContiguousStrides(r.keepdim_sizes), sizeof(A));
  it.Add(self);
  // Element type known at compile time, and a row folding into one
  // accumulator keeps it in a register; the order of combination is the
  // row-major order either way.
  VisitElementType(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    it.ForEachRow([&](char* const* p, const int64_t* s, int64_t n) {
      if (s[0] == 0) {
        A a = *reinterpret_cast<A*>(p[0]);
        for (int64_t i = 0; i < n; ++i) combine(a, LoadAs<T, C>(p[1] + i * s[1]));
        *reinterpret_cast<A*>(p[0]) = a;
      } else {
        for (int64_t i = 0; i < n; ++i) combine(*reinterpret_cast<A*>(p[0] + i * s[0]), LoadAs<T, C>(p[1] + i * s[1]));
      }
    });
  });
  return acc;
}

// Writes accumulators (row-major) into a fresh output, rounding to its dtype.
template <class A>
Tensor Store(const ReduceMetaResult& r, const std::vector<A>& acc) {
  Tensor out = MakeOutput(r.out);
  const StoreFn<A> store = StorerFor<A>(out.dtype());
  char* p = static_cast<char*>(out.data_ptr());
  for (const A& v : acc) {
    store(p, v);
    p += out.element_size();
  }
  return out;
}

// An op of backend/reduction_ops.def: its arithmetic R (reductions.h) on
// the accumulator type of the input's compute type.
template <class R>
Tensor Reduce(const Tensor& self, const ReduceMetaResult& r) {
  return VisitComputeType(self.dtype(), [&](auto tag) {
    using A = typename R::template Acc<typename decltype(tag)::type>;
    using C = typename decltype(tag)::type;
    std::vector<A> acc = Accumulate<A, A>(self, r, R::template Init<C>(),
                                          [](A& a, A x) { a = R::template Combine<C>(a, x); });
    for (A& v : acc) v = R::template Finish<C>(v, r.count);
    return Store(r, acc);
  });
}

#define NSIM_REDUCTION_DTYPE(name, Name, kind)                                                          \
  Tensor name(const Tensor& self, const std::optional<IntList>& dim, bool keepdim,                     \
              std::optional<ScalarType> dtype) {                                                       \
    return Reduce<reduction::Name>(self, ReduceMeta(#name, self, dim, keepdim, dtype, ReduceKind::kind)); \
  }
#define NSIM_REDUCTION_PLAIN(name, Name, kind)                                                                 \
  Tensor name(const Tensor& self, const IntList& dim, bool keepdim) {                                        \
    return Reduce<reduction::Name>(self, ReduceMeta(#name, self, dim, keepdim, std::nullopt, ReduceKind::kind)); \
  }
#define NSIM_REDUCTION_OP(name, Name, form, overload, kind, ...) NSIM_REDUCTION_##form(name, Name, kind)
#include "backend/reduction_ops.def"
#undef NSIM_REDUCTION_DTYPE
#undef NSIM_REDUCTION_PLAIN


// The largest (kMax) or smallest element along the reduced dim and its
// first index, a NaN counting as the extreme (ATen's max.dim / argmax: the
// first NaN wins). No dim: over the flattened (row-major) input.
template <bool kMax>
std::tuple<Tensor, Tensor> ArgExtremum(const char* op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  const ReduceMetaResult r = ArgReduceMeta(op, self, dim, keepdim);
  const Tensor x = dim ? self : self.reshape({self.numel()});
  const int64_t d = dim ? MaybeWrapDim(*dim, self.dim()) : 0;
  const ReduceMetaResult rx = dim ? r : ReduceMeta(op, x, IntList{0}, false, std::nullopt, ReduceKind::kExtremum);
  return VisitComputeType(self.dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    std::vector<C> best(Numel(rx.keepdim_sizes), C(0));
    std::vector<int64_t> indices(best.size(), 0);
    IntList index_sizes(x.dim(), 1);
    std::vector<int64_t> positions;
    if (x.dim() > 0) index_sizes[d] = x.size(d);
    for (int64_t i = 0; i < (x.dim() > 0 ? x.size(d) : 1); ++i) positions.push_back(i);
    const IntList acc_strides = ContiguousStrides(rx.keepdim_sizes);
    ElementwiseIter it(x.sizes());
    it.Add(best.data(), rx.keepdim_sizes, acc_strides, sizeof(C));
    it.Add(indices.data(), rx.keepdim_sizes, acc_strides, sizeof(int64_t));
    it.Add(x);
    it.Add(positions.data(), index_sizes, ContiguousStrides(index_sizes), sizeof(int64_t));
    const LoadFn<C> load = LoaderFor<C>(x.dtype());
    it.ForEach([&](char* const* p) {
      C& a = *reinterpret_cast<C*>(p[0]);
      const C v = load(p[2]);
      const int64_t pos = *reinterpret_cast<const int64_t*>(p[3]);
      // Row-major order visits pos 0 of each row first, so it seeds the row.
      if (pos == 0 || (a == a && (v != v || (kMax ? v > a : v < a)))) {
        a = v;
        *reinterpret_cast<int64_t*>(p[1]) = pos;
      }
    });
    ReduceMetaResult rv = r;
    rv.out.dtype = self.dtype();
    return std::make_tuple(Store(rv, best), Store(r, indices));
  });
}

// ATen's cumsum / cumprod: the input converted to the result's dtype, summed in order
// along `dim` in its accumulate type (double for float32, float for
// bf16/fp16, int64 for the integers), each prefix stored.
template <class A, bool kProduct>
void ScanRows(const Tensor& x, const Tensor& out, int64_t d) {
  const LoadFn<A> load = LoaderFor<A>(x.dtype());
  const StoreFn<A> store = StorerFor<A>(out.dtype());
  const int64_t n = x.dim() ? x.size(d) : 1;
  IntList outer = x.sizes();
  if (x.dim()) outer[d] = 1;
  ElementwiseIter it(outer);  // the first element of each row, walking both tensors' strides
  it.Add(out.data_ptr(), outer, out.strides(), out.element_size());
  it.Add(x.data_ptr(), outer, x.strides(), x.element_size());
  const int64_t so = x.dim() ? out.stride(d) * out.element_size() : 0;
  const int64_t sx = x.dim() ? x.stride(d) * x.element_size() : 0;
  it.ForEach([&](char* const* p) {
    A acc = A(kProduct ? 1 : 0);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (kProduct) acc *= load(p[1] + i * sx);
      else acc += load(p[1] + i * sx);
      store(p[0] + i * so, acc);
    }
  });
}

template <bool kProduct>
Tensor Scan(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  int64_t d;
  const TensorMeta m = CumsumMeta(self, dim, dtype, &d);
  Tensor out = MakeOutput(m);
  const Tensor x = self.dtype() == m.dtype ? self : self.to(m.dtype);
  if (out.numel() == 0) return out;
  if (IsIntegralType(m.dtype, true)) ScanRows<int64_t, kProduct>(x, out, d);
  else if (m.dtype == kBFloat16 || m.dtype == kHalf) ScanRows<float, kProduct>(x, out, d);
  else ScanRows<double, kProduct>(x, out, d);
  return out;
}
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return Scan<false>(self, dim, dtype); }
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return Scan<true>(self, dim, dtype); }

Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return std::get<1>(ArgExtremum<true>("argmax", self, dim, keepdim));
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return std::get<1>(ArgExtremum<false>("argmin", self, dim, keepdim));
}
// Values and (first) int64 indices of the maximum / minimum along one dim.
std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return ArgExtremum<true>("max", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> min_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return ArgExtremum<false>("min", self, dim, keepdim);
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CPU, m) {
#define NSIM_REDUCTION_OP(name, Name, form, overload, ...) m.impl(#name overload, &name);
#include "backend/reduction_ops.def"
  m.impl("max.dim", &max_dim);
  m.impl("min.dim", &min_dim);
  m.impl("argmax", &argmax);
  m.impl("argmin", &argmin);
  m.impl("cumsum", &cumsum);
  m.impl("cumprod", &cumprod);
}

}  // namespace at
}  // namespace nsim
