// CPU reference kernel of where.self (the numerical oracle): each element
// is `self` where the condition is true, else `other`, converted to the
// result type once, as ATen's where (which casts both operands to the
// result type first: the same single rounding).
#include "backend/cpu/loops.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"

namespace nsim {
namespace at {
namespace {

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  const TensorMeta m = WhereMeta(condition, self, other);
  Tensor out = MakeOutput(m);
  ElementwiseIter it(out.sizes());
  it.Add(out);
  it.Add(condition);
  it.Add(self);
  it.Add(other);
  VisitComputeType(m.dtype, [&](auto tag) {
    using C = typename decltype(tag)::type;
    const LoadFn<int64_t> lc = LoaderFor<int64_t>(condition.dtype());
    const LoadFn<C> la = LoaderFor<C>(self.dtype());
    const LoadFn<C> lb = LoaderFor<C>(other.dtype());
    const StoreFn<C> st = StorerFor<C>(out.dtype());
    it.ForEach([&](char* const* p) { st(p[0], lc(p[1]) != 0 ? la(p[2]) : lb(p[3])); });
  });
  return out;
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CPU, m) { m.impl("where.self", &where); }

}  // namespace at
}  // namespace nsim
