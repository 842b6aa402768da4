// CPU reference kernels for the pointwise binary ops of backend/binary_ops.def
// and pow (the numerical oracle).
// Each op is a functor over the compute type; BinaryKernel does the rest:
// shape/dtype from the shared shape function, allocation, the broadcasting loop.
#include <algorithm>
#include <cmath>

#include "backend/cpu/loops.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"

namespace nsim {
namespace at {
namespace {

// An operand of a Bool-valued op in the compute type, as ATen casts it (a
// float32 number compared with a bfloat16 tensor is rounded to bfloat16).
Tensor InComputeType(const Tensor& t, ScalarType compute, Promotion p) {
  return IsBoolValued(p) && t.dtype() != compute ? t.to(compute) : t;
}

template <class Op>
Tensor BinaryKernel(const Tensor& a, const Tensor& b, Promotion p, const Op& op) {
  const TensorMeta m = BinaryMeta(a, b, p);
  const ScalarType compute = BinaryComputeType(a, b, p);
  Tensor out = MakeOutput(m);
  VisitComputeType(compute, [&](auto tag) {
    using C = typename decltype(tag)::type;
    BinaryLoop<C>(out, InComputeType(a, compute, p), InComputeType(b, compute, p),
                  [&](C x, C y) { return static_cast<C>(op(x, y)); });
  });
  return out;
}

// Each op of backend/binary_ops.def: a functor over the compute type whose
// body is the table's `cpu` column. alpha is converted to the compute type,
// as PyTorch does (add(int, int, alpha=2.5) -> 2).
#define NSIM_BINARY_OP(name, Name, form, promotion, cpu, alu) \
  struct Name##Op {                                            \
    double alpha;                                              \
    template <class C> C operator()(C x, C y) const { return static_cast<C>(cpu); } \
  };
#include "backend/binary_ops.def"

#define NSIM_BINARY_ALPHA(name, Name, P)                                   \
  Tensor name(const Tensor& a, const Tensor& b, const Scalar& alpha) {     \
    return BinaryKernel(a, b, Promotion::P, Name##Op{alpha.toDouble()});  \
  }
#define NSIM_BINARY_SCALAR(name, Name, P)                  \
  Tensor name(const Tensor& a, const Tensor& b) {          \
    return BinaryKernel(a, b, Promotion::P, Name##Op{1.0});  \
  }
#define NSIM_BINARY_PLAIN NSIM_BINARY_SCALAR
#define NSIM_BINARY_EXPONENT(name, Name, P)                  \
  Tensor name##_tensor(const Tensor& a, const Tensor& b) {   \
    return BinaryKernel(a, b, Promotion::P, Name##Op{1.0});   \
  }
#define NSIM_BINARY_OP(name, Name, form, promotion, ...) NSIM_BINARY_##form(name, Name, promotion)
#include "backend/binary_ops.def"
#undef NSIM_BINARY_ALPHA
#undef NSIM_BINARY_SCALAR
#undef NSIM_BINARY_PLAIN
#undef NSIM_BINARY_EXPONENT

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
#include "backend/binary_ops_impl.inc"
  m.impl("pow.Tensor_Scalar", &pow);
}

}  // namespace at
}  // namespace nsim
