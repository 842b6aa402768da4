// The modified Bessel functions of the first kind ATen computes with Cephes'
// Chebyshev series (i0, special_i0e, special_i1, special_i1e), composed by
// torch_nsim from device kernels: the series' recurrence b0 = x b1 - b2 + c
// as device multiplies and adds on fp32 tensors, with ATen's own fp32
// coefficient tables (ATen/native/Math.h: the CPU's, so the same constants
// in the same order), both of Cephes' intervals ([0, 8] and (8, inf))
// computed and selected per element (where: the other interval's inf/NaN
// never leaks). bf16 is computed in fp32 and rounded once, as ATen upcasts
// it. Each step is a device kernel, timed like any other.
#include <cstddef>
#include <tuple>

#include <ATen/ATen.h>
#include <ATen/native/Math.h>
#include <torch/library.h>

#include "torch_nsim/csrc/out_variant.h"
#include "torch_nsim/csrc/wrapped_number.h"

namespace torch_nsim {
namespace {

using at::Tensor;

// chbevl(x, c, n) of fp32 tensor x: ATen's loop, one device step per term.
Tensor Chbevl(const Tensor& x, std::tuple<const float*, size_t> table) {
  const auto [c, n] = table;
  Tensor b0 = at::full_like(x, c[0]), b1 = at::zeros_like(x), b2;
  for (size_t i = 1; i < n; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = at::mul(x, b1).sub(b2).add(Wrapped(c[i]));
  }
  return at::sub(b0, b2).mul(Wrapped(0.5));
}

// Which function of the family: I0 or I1, scaled by exp(-|x|) or not.
struct Bessel {
  bool order1, scaled;
};

Tensor Evaluate(const Tensor& self, Bessel f, const char* op) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()), op, " on neuron: floating dtypes only, not ",
                              self.scalar_type());
  const Tensor x = self.to(c10::kFloat);
  const Tensor a = at::abs(x);
  // [0, 8]: the series in a / 2 - 2 (exp(-a) I(a), times a for I1).
  Tensor small = Chbevl(at::mul(a, Wrapped(0.5)).sub(Wrapped(2.0)),
                        f.order1 ? chebyshev_coefficients_i1e_A<float>() : chebyshev_coefficients_i0e_A<float>());
  // (8, inf): the series in 32 / a - 2 (exp(-a) sqrt(a) I(a)), over sqrt(a).
  Tensor large = Chbevl(at::div(at::full_like(a, 32.0), a).sub(Wrapped(2.0)),
                        f.order1 ? chebyshev_coefficients_i1e_B<float>() : chebyshev_coefficients_i0e_B<float>());
  if (f.order1) small = f.scaled ? small.mul(a) : at::exp(a).mul(a).mul(small);
  else if (!f.scaled) small = at::exp(a).mul(small);
  if (!f.scaled) large = at::exp(a).mul(large);
  large = at::div(large, at::sqrt(a));
  Tensor r = at::where(at::le(a, Wrapped(8.0)), small, large);
  if (f.order1) r = at::where(at::lt(x, Wrapped(0.0)), r.neg(), r);  // I1 is odd
  return r.scalar_type() == self.scalar_type() ? r : r.to(self.scalar_type());
}

Tensor I0(const Tensor& self) { return Evaluate(self, {false, false}, "aten::i0"); }
Tensor I0e(const Tensor& self) { return Evaluate(self, {false, true}, "aten::special_i0e"); }
Tensor I1(const Tensor& self) { return Evaluate(self, {true, false}, "aten::special_i1"); }
Tensor I1e(const Tensor& self) { return Evaluate(self, {true, true}, "aten::special_i1e"); }
Tensor& I0Out(const Tensor& self, Tensor& out) { return CopyToOut(I0(self), out); }
Tensor& I0eOut(const Tensor& self, Tensor& out) { return CopyToOut(I0e(self), out); }
Tensor& I1Out(const Tensor& self, Tensor& out) { return CopyToOut(I1(self), out); }
Tensor& I1eOut(const Tensor& self, Tensor& out) { return CopyToOut(I1e(self), out); }
Tensor& I0_(Tensor& self) { return self.copy_(I0(self)); }

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("i0", &I0);
  m.impl("i0.out", &I0Out);
  m.impl("i0_", &I0_);
  m.impl("special_i0e", &I0e);
  m.impl("special_i0e.out", &I0eOut);
  m.impl("special_i1", &I1);
  m.impl("special_i1.out", &I1Out);
  m.impl("special_i1e", &I1e);
  m.impl("special_i1e.out", &I1eOut);
}

}  // namespace torch_nsim
