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
  if (IsFloatingType(m.dtype)) UnaryLoop<float>(out, self, ff);
  else UnaryLoop<int64_t>(out, self, fi);
  return out;
}

// For kinds whose integral inputs became Float: the integer path is unreachable.
int64_t NoInt(int64_t x) { return x; }

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

Tensor neg(const Tensor& s) {
  return UnaryKernel(unary::kNeg, s, [](float x) { return -x; },
                     [](int64_t x) { return -x; });
}
Tensor abs(const Tensor& s) {
  return UnaryKernel(unary::kAbs, s, [](float x) { return std::fabs(x); },
                     [](int64_t x) { return x < 0 ? -x : x; });
}
Tensor relu(const Tensor& s) {
  // NaN stays NaN (x > 0 is false for NaN, but PyTorch's clamp_min keeps it).
  return UnaryKernel(unary::kRelu, s,
                     [](float x) { return std::isnan(x) ? x : (x > 0 ? x : 0.0f); },
                     [](int64_t x) { return x > 0 ? x : int64_t{0}; });
}
Tensor exp(const Tensor& s) {
  return UnaryKernel(unary::kExp, s, [](float x) { return std::exp(x); }, NoInt);
}
Tensor log(const Tensor& s) {
  return UnaryKernel(unary::kLog, s, [](float x) { return std::log(x); }, NoInt);
}
Tensor sqrt(const Tensor& s) {
  return UnaryKernel(unary::kSqrt, s, [](float x) { return std::sqrt(x); }, NoInt);
}
Tensor rsqrt(const Tensor& s) {
  return UnaryKernel(unary::kRsqrt, s,
                     [](float x) { return 1.0f / std::sqrt(x); }, NoInt);
}
Tensor reciprocal(const Tensor& s) {
  return UnaryKernel(unary::kReciprocal, s, [](float x) { return 1.0f / x; },
                     NoInt);
}
Tensor tanh(const Tensor& s) {
  return UnaryKernel(unary::kTanh, s, [](float x) { return std::tanh(x); }, NoInt);
}
Tensor sigmoid(const Tensor& s) {
  return UnaryKernel(unary::kSigmoid, s, Sigmoid, NoInt);
}
Tensor silu(const Tensor& s) {
  return UnaryKernel(unary::kSilu, s, [](float x) { return x * Sigmoid(x); },
                     NoInt);
}

Tensor gelu(const Tensor& s, const std::string& approximate) {
  if (approximate == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    return UnaryKernel(unary::kGelu, s, [](float x) {
      const float k = 0.7978845608028654f;
      return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
    }, NoInt);
  }
  if (approximate != "none") {
    throw SimError("approximate argument must be either none or tanh.");
  }
  return UnaryKernel(unary::kGelu, s, [](float x) {
    return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f));
  }, NoInt);
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("neg", &neg);
  m.impl("abs", &abs);
  m.impl("relu", &relu);
  m.impl("exp", &exp);
  m.impl("log", &log);
  m.impl("sqrt", &sqrt);
  m.impl("rsqrt", &rsqrt);
  m.impl("reciprocal", &reciprocal);
  m.impl("tanh", &tanh);
  m.impl("sigmoid", &sigmoid);
  m.impl("silu", &silu);
  m.impl("gelu", &gelu);
}

}  // namespace at
}  // namespace nsim
