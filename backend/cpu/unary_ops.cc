// CPU reference kernels for pointwise unary ops. Float math runs in fp32
// (ATen's opmath for bf16/fp16) and rounds once when stored.
#include <cmath>

#include "backend/cpu/loops.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"

namespace nsim {
namespace at {
namespace {

// One kernel per (spec, float function, integer function).
template <class FloatFn, class IntFn>
Tensor UnaryKernel(const UnarySpec& spec, const Tensor& self, FloatFn ff, IntFn fi) {
  const TensorMeta m = UnaryMeta(spec, self);
  Tensor out = MakeOutput(m);
  // A Bool-valued op computes in its input's type.
  if (IsFloatingType(spec.kind == UnaryKind::kToBool ? self.dtype() : m.dtype)) UnaryLoop<float>(out, self, ff);
  else UnaryLoop<int64_t>(out, self, fi);
  return out;
}

// The CPU reference of each op of backend/unary_ops.def. For kinds whose
// integral inputs became Float (NO_INT) the integer path is unreachable.
#define NO_INT x
#define NSIM_UNARY_OP(name, Name, kind, cpu_float, cpu_int, device)                          \
  Tensor name(const Tensor& s) {                                                             \
    return UnaryKernel(                                                                      \
        unary::k##Name, s, [](float x) -> float { return static_cast<float>(cpu_float); },   \
        [](int64_t x) -> int64_t { return static_cast<int64_t>(cpu_int); });                \
  }
#include "backend/unary_ops.def"
#undef NO_INT

Tensor gelu(const Tensor& s, const std::string& approximate) {
  if (IsGeluTanh(approximate)) {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    return UnaryKernel(unary::kGelu, s, [](float x) {
      const float k = 0.7978845608028654f;
      return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
    }, [](int64_t x) { return x; });
  }
  return UnaryKernel(unary::kGelu, s, [](float x) {
    return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f));
  }, [](int64_t x) { return x; });
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CPU, m) {
#define NSIM_UNARY_OP(name, ...) m.impl(#name, &name);
#include "backend/unary_ops.def"
  m.impl("gelu", &gelu);
}

}  // namespace at
}  // namespace nsim
