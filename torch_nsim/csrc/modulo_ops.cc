// fmod, remainder, floor division (floor_divide, div rounding_mode='floor')
// and copysign, composed by torch_nsim from device kernels. fmod is exact by
// binary long division: |a| minus |b| 2^k wherever it fits, k from the
// largest needed down to 0; each subtraction is exact (Sterbenz: the two
// values are within a factor of 2), so the remainder is exactly C's fmod in
// every dtype. The largest k comes from the largest |a / b|, read on the
// host once per call (a sync). The rest follows ATen's CPU kernels step by
// step, rounding where they round: a bf16 tensor divisor computes in bf16
// (each step rounded), a number divisor in fp32 (ATen's scalar path for
// floor division; fmod and remainder round the number to the dtype).
#include <cmath>
#include <limits>

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <torch/library.h>

#include "torch_nsim/csrc/out_variant.h"
#include "torch_nsim/csrc/rounding.h"
#include "torch_nsim/csrc/wrapped_number.h"

namespace torch_nsim {
namespace {

using at::Tensor;

constexpr double kInf = std::numeric_limits<double>::infinity();

c10::ScalarType FloatingResult(const Tensor& a, const Tensor& b, const char* op) {
  const c10::ScalarType t = at::result_type(a, b);
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(t), op, " on neuron: floating dtypes only, not ", t);
  return t;
}

// `x` in dtype `t`, on `like`'s device, at the broadcast shape, every element
// stored (a full tensor: the code generator's broadcast divide is inexact).
Tensor Full(const Tensor& x, c10::ScalarType t, const Tensor& like, at::IntArrayRef shape) {
  return x.to(t).to(like.device()).expand(shape).contiguous();
}

bool HostScalar(const Tensor& t) { return t.device().is_cpu() && t.dim() == 0; }

// x 2^k, exactly (or inf), in steps of at most 2^126: fp32 immediates stop at 2^127.
Tensor ScaleByPowerOfTwo(const Tensor& x, int k) {
  Tensor r = x;
  for (; k > 0; k -= 126) r = at::mul(r, Wrapped(std::ldexp(1.0, k < 126 ? k : 126)));
  return r;
}

// C's fmod of two fp32 tensors of one shape, exactly.
Tensor Fmod32(const Tensor& a, const Tensor& b) {
  const Tensor A = at::abs(a), B = at::abs(b);
  // a finite, 0 < |b| < inf: the division runs; b = +-inf keeps a; else NaN.
  const Tensor finite_a = at::lt(A, Wrapped(kInf));
  const Tensor valid = at::logical_and(finite_a, at::logical_and(at::gt(B, Wrapped(0.0)), at::lt(B, Wrapped(kInf))));
  const Tensor invalid = at::logical_not(valid);
  Tensor r = at::masked_fill(A, invalid, 0.0);
  const Tensor d = at::masked_fill(B, invalid, 1.0);
  if (r.numel() > 0) {
    // The top k: 2^(k+1) > every |a / b| (rounding is monotone; an overflowed
    // ratio is below 2^277, fp32's largest over its smallest).
    const float ratio = at::amax(at::div(r, d)).item<float>();
    const int top = ratio < 1.0f ? -1 : (std::isinf(ratio) ? 277 : std::ilogb(ratio));
    for (int k = top; k >= 0; --k) {
      const Tensor s = ScaleByPowerOfTwo(d, k);
      r = at::where(at::ge(r, s), at::sub(r, s), r);
    }
  }
  r = at::where(Signbit(a), r.neg(), r);  // the sign of a, -0.0 included
  r = at::masked_fill(r, invalid, std::numeric_limits<double>::quiet_NaN());
  return at::where(at::logical_and(finite_a, at::eq(B, Wrapped(kInf))), a, r);
}

// fmod of a and b already in the compute dtype `c` (fp32 or the result dtype).
Tensor FmodIn(const Tensor& a, const Tensor& b) {
  return Fmod32(a.to(c10::kFloat), b.to(c10::kFloat)).to(a.scalar_type());
}

// remainder: fmod, plus b where it is non-zero with the other sign (Python's %).
Tensor RemainderIn(const Tensor& a, const Tensor& b) {
  const Tensor m = FmodIn(a, b);
  const Tensor flip = at::logical_and(at::ne(m, Wrapped(0.0)),
                                      at::logical_xor(at::lt(b, Wrapped(0.0)), at::lt(m, Wrapped(0.0))));
  return at::where(flip, at::add(m, b), m);
}

// The operands of fmod / remainder in the result dtype, full tensors (a
// number is rounded to the dtype, as the CPU does for these two).
std::pair<Tensor, Tensor> Operands(const Tensor& a, const Tensor& b, const char* op) {
  const c10::ScalarType t = FloatingResult(a, b, op);
  const Tensor& dev = a.device().is_cpu() ? b : a;
  const std::vector<int64_t> shape = at::infer_size(a.sizes(), b.sizes());
  return {Full(a, t, dev, shape), Full(b, t, dev, shape)};
}

Tensor Fmod(const Tensor& a, const Tensor& b) {
  const auto [x, y] = Operands(a, b, "aten::fmod");
  return FmodIn(x, y);
}
Tensor Remainder(const Tensor& a, const Tensor& b) {
  const auto [x, y] = Operands(a, b, "aten::remainder");
  return RemainderIn(x, y);
}

// ATen's div_floor_floating on a, b of one dtype (each step rounded to it):
// a / b where b == 0; else d = (a - fmod(a, b)) / b, minus 1 where the
// remainder's sign differs from b's, floored, plus 1 where d - floor(d) > 0.5;
// a zero quotient takes the sign of a / b.
Tensor FloorDivIn(const Tensor& a, const Tensor& b) {
  const Tensor q = at::div(a, b);
  const Tensor m = FmodIn(a, b);
  Tensor d = at::div(at::sub(a, m), b);
  const Tensor flip = at::logical_and(at::ne(m, Wrapped(0.0)),
                                      at::logical_xor(at::lt(b, Wrapped(0.0)), at::lt(m, Wrapped(0.0))));
  d = at::where(flip, at::sub(d, Wrapped(1.0)), d);
  const Tensor t = Trunc(d);
  Tensor fl = at::where(at::lt(d, t), at::sub(t, Wrapped(1.0)), t);  // floor, exactly
  fl = at::where(at::gt(at::sub(d, fl), Wrapped(0.5)), at::add(fl, Wrapped(1.0)), fl);
  const Tensor zero = at::zeros_like(q);
  const Tensor signed_zero = at::where(Signbit(q), zero.neg(), zero);
  const Tensor r = at::where(at::ne(d, Wrapped(0.0)), fl, signed_zero);
  return at::where(at::eq(b, Wrapped(0.0)), q, r);
}

// copysign: x, negated where its sign bit differs from y's (neg flips the
// bit exactly; the device's abs keeps -0.0's, so |x| would not do).
Tensor Copysign(const Tensor& a, const Tensor& b) {
  c10::ScalarType t = at::result_type(a, b);
  if (!at::isFloatingType(t)) t = c10::kFloat;  // integers give float, as on the CPU
  const Tensor& dev = a.device().is_cpu() ? b : a;
  const std::vector<int64_t> shape = at::infer_size(a.sizes(), b.sizes());
  const Tensor x = Full(a, t, dev, shape), y = Full(b, t, dev, shape);
  return at::where(at::logical_xor(Signbit(x), Signbit(y)), x.neg(), x);
}

// nextafter(x, y): the neighbour of x toward y, by integer arithmetic on its
// bits (a view of the memory as int32 / int16; the device adds integers
// exactly, limb by limb): +1 moves away from zero, -1 toward it; a zero first
// takes y's sign (so +-0 steps to the smallest subnormal of y's sign); y where
// x == y, NaN where either is NaN.
Tensor Nextafter(const Tensor& self, const Tensor& other) {
  const c10::ScalarType t = FloatingResult(self, other, "aten::nextafter");
  TORCH_CHECK_NOT_IMPLEMENTED(t == c10::kFloat || t == c10::kBFloat16,
                              "aten::nextafter on neuron: float32 and bfloat16 only, not ", t);
  const Tensor& dev = self.device().is_cpu() ? other : self;
  const std::vector<int64_t> shape = at::infer_size(self.sizes(), other.sizes());
  const Tensor x = Full(self, t, dev, shape), y = Full(other, t, dev, shape);
  const Tensor zero = at::eq(x, Wrapped(0.0));
  const Tensor start = at::where(zero, Copysign(x, y), x);  // a zero with y's sign
  const Tensor away = at::logical_or(zero, at::logical_not(at::logical_xor(at::gt(y, x), at::gt(x, Wrapped(0.0)))));
  const c10::ScalarType bits = t == c10::kFloat ? c10::kInt : c10::kShort;
  const Tensor step = at::where(away, at::ones_like(x), at::full_like(x, -1.0)).to(bits);
  Tensor r = at::add(start.view(bits), step).view(t);
  r = at::where(at::eq(x, y), y, r);
  return at::masked_fill(r, at::logical_or(at::isnan(x), at::isnan(y)), std::numeric_limits<double>::quiet_NaN());
}

Tensor FmodS(const Tensor& a, const c10::Scalar& b) { return Fmod(a, Wrapped(b)); }
Tensor RemainderS(const Tensor& a, const c10::Scalar& b) { return Remainder(a, Wrapped(b)); }
Tensor RemainderST(const c10::Scalar& a, const Tensor& b) { return Remainder(Wrapped(a), b); }
Tensor FloorDivideS(const Tensor& a, const c10::Scalar& b) { return FloorDivide(a, Wrapped(b)); }
Tensor CopysignS(const Tensor& a, const c10::Scalar& b) { return Copysign(a, Wrapped(b)); }

Tensor& FmodOut(const Tensor& a, const Tensor& b, Tensor& out) { return CopyToOut(Fmod(a, b), out); }
Tensor& FmodSOut(const Tensor& a, const c10::Scalar& b, Tensor& out) { return CopyToOut(FmodS(a, b), out); }
Tensor& RemainderOut(const Tensor& a, const Tensor& b, Tensor& out) { return CopyToOut(Remainder(a, b), out); }
Tensor& RemainderSOut(const Tensor& a, const c10::Scalar& b, Tensor& out) {
  return CopyToOut(RemainderS(a, b), out);
}
Tensor& RemainderSTOut(const c10::Scalar& a, const Tensor& b, Tensor& out) {
  return CopyToOut(RemainderST(a, b), out);
}
Tensor& FloorDivideOut(const Tensor& a, const Tensor& b, Tensor& out) { return CopyToOut(FloorDivide(a, b), out); }
Tensor& FloorDivideSOut(const Tensor& a, const c10::Scalar& b, Tensor& out) {
  return CopyToOut(FloorDivideS(a, b), out);
}
Tensor& CopysignOut(const Tensor& a, const Tensor& b, Tensor& out) { return CopyToOut(Copysign(a, b), out); }
Tensor& CopysignSOut(const Tensor& a, const c10::Scalar& b, Tensor& out) { return CopyToOut(CopysignS(a, b), out); }
Tensor& NextafterOut(const Tensor& a, const Tensor& b, Tensor& out) { return CopyToOut(Nextafter(a, b), out); }
Tensor& Nextafter_(Tensor& a, const Tensor& b) { return a.copy_(Nextafter(a, b)); }
Tensor& Fmod_(Tensor& a, const Tensor& b) { return a.copy_(Fmod(a, b)); }
Tensor& FmodS_(Tensor& a, const c10::Scalar& b) { return a.copy_(FmodS(a, b)); }
Tensor& Remainder_(Tensor& a, const Tensor& b) { return a.copy_(Remainder(a, b)); }
Tensor& RemainderS_(Tensor& a, const c10::Scalar& b) { return a.copy_(RemainderS(a, b)); }
Tensor& FloorDivide_(Tensor& a, const Tensor& b) { return a.copy_(FloorDivide(a, b)); }
Tensor& FloorDivideS_(Tensor& a, const c10::Scalar& b) { return a.copy_(FloorDivideS(a, b)); }
Tensor& Copysign_(Tensor& a, const Tensor& b) { return a.copy_(Copysign(a, b)); }
Tensor& CopysignS_(Tensor& a, const c10::Scalar& b) { return a.copy_(CopysignS(a, b)); }

}  // namespace

// A tensor divisor: every step in the result dtype (bf16 rounds each, as the
// CPU's bf16 kernel). A number or 0-dim host tensor: in fp32 with its own
// value, rounded once at the end (ATen's scalar path).
Tensor FloorDivide(const Tensor& self, const Tensor& other) {
  const c10::ScalarType t = FloatingResult(self, other, "aten::floor_divide");
  const std::vector<int64_t> shape = at::infer_size(self.sizes(), other.sizes());
  if (HostScalar(other)) {
    return FloorDivIn(Full(self.to(t), c10::kFloat, self, shape), Full(other, c10::kFloat, self, shape)).to(t);
  }
  const Tensor& dev = self.device().is_cpu() ? other : self;
  return FloorDivIn(Full(self, t, dev, shape), Full(other, t, dev, shape));
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("fmod.Tensor", &Fmod);
  m.impl("fmod.Scalar", &FmodS);
  m.impl("fmod.Tensor_out", &FmodOut);
  m.impl("fmod.Scalar_out", &FmodSOut);
  m.impl("fmod_.Tensor", &Fmod_);
  m.impl("fmod_.Scalar", &FmodS_);
  m.impl("remainder.Tensor", &Remainder);
  m.impl("remainder.Scalar", &RemainderS);
  m.impl("remainder.Scalar_Tensor", &RemainderST);
  m.impl("remainder.Tensor_out", &RemainderOut);
  m.impl("remainder.Scalar_out", &RemainderSOut);
  m.impl("remainder.Scalar_Tensor_out", &RemainderSTOut);
  m.impl("remainder_.Tensor", &Remainder_);
  m.impl("remainder_.Scalar", &RemainderS_);
  m.impl("floor_divide", &FloorDivide);
  m.impl("floor_divide.Scalar", &FloorDivideS);
  m.impl("floor_divide.out", &FloorDivideOut);
  m.impl("floor_divide.Scalar_out", &FloorDivideSOut);
  m.impl("floor_divide_.Tensor", &FloorDivide_);
  m.impl("floor_divide_.Scalar", &FloorDivideS_);
  m.impl("nextafter", &Nextafter);
  m.impl("nextafter.out", &NextafterOut);
  m.impl("nextafter_", &Nextafter_);
  m.impl("copysign.Tensor", &Copysign);
  m.impl("copysign.Scalar", &CopysignS);
  m.impl("copysign.out", &CopysignOut);
  m.impl("copysign.Scalar_out", &CopysignSOut);
  m.impl("copysign_.Tensor", &Copysign_);
  m.impl("copysign_.Scalar", &CopysignS_);
}

}  // namespace torch_nsim
