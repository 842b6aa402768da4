// CPU reference kernels for pointwise binary ops (the numerical oracle).
// Each op is a functor over the compute type; BinaryKernel does the rest:
// shape/dtype from the shared shape function, allocation, the broadcasting loop.
#include <algorithm>
#include <cmath>

#include "backend/binary_ops_registration.h"
#include "backend/cpu/loops.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"

namespace nsim {
namespace at {
namespace {

template <class Op>
Tensor BinaryKernel(const Tensor& a, const Tensor& b, Promotion p, const Op& op) {
  const TensorMeta m = BinaryMeta(a, b, p);
  Tensor out = MakeOutput(m);
  VisitComputeType(m.dtype, [&](auto tag) {
    using C = typename decltype(tag)::type;
    BinaryLoop<C>(out, a, b, [&](C x, C y) { return op(x, y); });
  });
  return out;
}

// alpha is converted to the compute type, as PyTorch does (add(int, int, alpha=2.5) -> 2).
struct AddOp {
  double alpha;
  template <class C> C operator()(C x, C y) const { return x + static_cast<C>(alpha) * y; }
};
struct MulOp {
  template <class C> C operator()(C x, C y) const { return x * y; }
};
struct DivOp {  // true division; integral inputs were promoted to float
  template <class C> C operator()(C x, C y) const { return x / y; }
};
// NaN propagates, as torch.maximum/minimum do.
struct MaxOp {
  template <class C> C operator()(C x, C y) const {
    if (x != x) return x;
    if (y != y) return y;
    return std::max(x, y);
  }
};
struct MinOp {
  template <class C> C operator()(C x, C y) const {
    if (x != x) return x;
    if (y != y) return y;
    return std::min(x, y);
  }
};

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return BinaryKernel(a, b, Promotion::kResultType, AddOp{alpha.toDouble()});
}
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  CheckSubOperands(a, b);
  return BinaryKernel(a, b, Promotion::kResultType, AddOp{-alpha.toDouble()});
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return BinaryKernel(a, b, Promotion::kResultType, MulOp{});
}
Tensor div(const Tensor& a, const Tensor& b) {
  return BinaryKernel(a, b, Promotion::kIntToFloat, DivOp{});
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  return BinaryKernel(a, b, Promotion::kResultType, MaxOp{});
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return BinaryKernel(a, b, Promotion::kResultType, MinOp{});
}

// PyTorch special-cases common exponents (exact x*x for 2, sqrt for 0.5, ...).
float PowFloat(float x, double e) {
  if (e == 2) return x * x;
  if (e == 3) return x * x * x;
  if (e == 0.5) return std::sqrt(x);
  if (e == -0.5) return 1.0f / std::sqrt(x);
  if (e == -1) return 1.0f / x;
  return std::pow(x, static_cast<float>(e));
}

int64_t PowInt(int64_t x, int64_t e) {
  int64_t r = 1;
  for (; e > 0; e >>= 1, x *= x) {
    if (e & 1) r *= x;
  }
  return r;
}

Tensor pow(const Tensor& self, const Scalar& exponent) {
  const TensorMeta m = PowMeta(self, exponent);
  Tensor out = MakeOutput(m);
  if (IsFloatingType(m.dtype)) {
    const double e = exponent.toDouble();
    UnaryLoop<float>(out, self, [e](float x) { return PowFloat(x, e); });
  } else {
    const int64_t e = exponent.toLong();
    UnaryLoop<int64_t>(out, self, [e](int64_t x) { return PowInt(x, e); });
  }
  return out;
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CPU, m) {
  RegisterBinaryOps(m, &add, &sub, &mul, &div, &maximum, &minimum, &pow);
}

}  // namespace at
}  // namespace nsim
