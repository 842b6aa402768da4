// Pointwise ops torch_nsim composes from the simulator's device kernels
// (registered for PrivateUse1; the simulator has no op of their own): sinh,
// sinc, lgamma, trunc, div with rounding_mode='trunc', round (+decimals), signbit,
// logit, nan_to_num, special_entr, softshrink, hardshrink, logaddexp2,
// bitwise and/or/xor of bools, linalg_cross. Each step is a device kernel,
// timed by the model like any other; a bf16 input is computed in fp32 and
// rounded once, as ATen's CPU kernels compute reduced floats in float
// (opmath). Rounding ops are exact (every step is an exact fp32 operation);
// the transcendental ones are the device's activations, within OpInfo's
// tolerance of the CPU.
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/WrapDimUtils.h>
#include <torch/library.h>

#include "torch_nsim/csrc/out_variant.h"
#include "torch_nsim/csrc/rounding.h"
#include "torch_nsim/csrc/wrapped_number.h"

namespace torch_nsim {
namespace {

using at::Tensor;

constexpr double kLn2 = 0.6931471805599453;
// 2^23: from here on every fp32 is an integer, and below it |x| + 2^23 lies
// in [2^23, 2^24), where fp32's spacing is exactly 1.
constexpr double kTwo23 = 8388608.0;

void CheckFloating(const Tensor& self, const char* op) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()), op, " on neuron: floating dtypes only, not ",
                              self.scalar_type());
}

// The fp32 operand of an opmath computation, and its result in `like`'s dtype.
Tensor Fp32(const Tensor& t) { return t.scalar_type() == c10::kFloat ? t : t.to(c10::kFloat); }
Tensor As(const Tensor& r, const Tensor& like) {
  return r.scalar_type() == like.scalar_type() ? r : r.to(like.scalar_type());
}

// sinh(x) = exp(x - ln 2) - exp(-x - ln 2): no overflow below sinh's own
// (as the device's cosh), in fp32.
Tensor Sinh(const Tensor& self) {
  CheckFloating(self, "aten::sinh");
  const Tensor x = Fp32(self);
  return As(at::exp(at::sub(x, Wrapped(kLn2))).sub(at::exp(at::rsub(x, -kLn2))), self);
}

// sinc(x) = sin(pi x) / (pi x), 1 at 0 (ATen's order: the product first).
Tensor Sinc(const Tensor& self) {
  CheckFloating(self, "aten::sinc");
  const Tensor x = Fp32(self);
  const Tensor px = at::mul(x, Wrapped(M_PI));
  return As(at::masked_fill(at::sin(px).div(px), at::eq(x, Wrapped(0.0)), 1.0), self);
}

// log Gamma(y) for y >= 0.5, in fp32: Stirling's series at z = y + 8
// (truncation below 1e-10 there), less log(y (y+1) ... (y+7)) taken as two
// products of four (no overflow below 4e9); from y = 1e6 on, the series at y.
Tensor LgammaAtLeastHalf(const Tensor& y) {
  const Tensor small = at::lt(y, Wrapped(1e6));
  const Tensor z = at::where(small, at::add(y, Wrapped(8.0)), y);
  const Tensor r = at::reciprocal(z), r2 = at::mul(r, r);
  // 1/(12 z) - 1/(360 z^3) + 1/(1260 z^5), Horner in 1/z^2
  const Tensor series = at::mul(r, at::add(at::mul(r2, at::add(at::mul(r2, Wrapped(1.0 / 1260)), Wrapped(-1.0 / 360))),
                                           Wrapped(1.0 / 12)));
  const Tensor stirling = at::add(at::sub(at::mul(at::sub(z, Wrapped(0.5)), at::log(z)), z),
                                  at::add(series, Wrapped(0.9189385332046728)));  // + log(2 pi) / 2
  auto prod4 = [&](double k) {
    Tensor p = at::add(y, Wrapped(k));
    for (double i = 1; i < 4; ++i) p = at::mul(p, at::add(y, Wrapped(k + i)));
    return at::log(p);
  };
  const Tensor shift = at::add(prod4(0), prod4(4));
  return at::where(small, at::sub(stirling, shift), stirling);
}

// lgamma in fp32 (bf16 widened, rounded once, as ATen's kernel): x >= 0.5
// directly, below by reflection, log(pi / |sin(pi x)|) - lgamma(1 - x), with
// sin taken at x - round(x) (exact; |pi r| <= pi/2 keeps sin's relative
// error where it is small); +inf at the poles (0, -1, ...) and at +-inf.
Tensor Lgamma(const Tensor& self) {
  CheckFloating(self, "aten::lgamma");
  const Tensor x = Fp32(self);
  const Tensor reflect = at::lt(x, Wrapped(0.5));
  const Tensor positive = LgammaAtLeastHalf(at::where(reflect, at::rsub(x, 1.0), x));
  const Tensor sin = at::abs(at::sin(at::mul(at::sub(x, at::round(x)), Wrapped(M_PI))));
  const Tensor reflected = at::sub(at::log(at::div(at::full_like(sin, M_PI), sin)), positive);
  const Tensor r = at::where(reflect, reflected, positive);
  return As(at::masked_fill(r, at::eq(at::abs(x), Wrapped(INFINITY)), INFINITY), self);
}

}  // namespace

// trunc(x) = x - fmod(x, 1) (frac's one ALU op; both steps exact), x itself
// where frac is NaN (x NaN or +-inf).
Tensor Trunc(const Tensor& self) {
  if (!at::isFloatingType(self.scalar_type())) return self.clone();
  const Tensor f = at::frac(self);
  return at::where(at::isnan(f), self, at::sub(self, f));
}

namespace {

// div with rounding_mode: None is true division; 'trunc' is trunc(a / b) as
// the CPU computes it. Two tensors: both in the result dtype, the quotient
// in fp32 rounded to the dtype, then trunc (bf16 3 / 0.1 is 30, not 29). A
// number or 0-dim host tensor divisor: its own value in fp32, the quotient
// truncated unrounded (ATen's scalar path; bf16 x / 3.7 differs). Divided as
// two full tensors so VectorE's divide gives the correctly rounded quotient
// (the code generator divides by a broadcast value as a reciprocal
// multiply). 'floor' is floor_divide (modulo_ops.cc).
Tensor DivMode(const Tensor& self, const Tensor& other, std::optional<c10::string_view> mode) {
  if (!mode) return at::div(self, other);
  const c10::ScalarType t = at::result_type(self, other);
  if (*mode == "floor") return FloorDivide(self, other);
  TORCH_CHECK(*mode == "trunc", "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
              *mode, "'");
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(t), "aten::div.Tensor_mode on neuron: floating dtypes only, not ", t);
  const std::vector<int64_t> shape = at::infer_size(self.sizes(), other.sizes());
  auto full = [&](const Tensor& x) { return x.to(self.device()).to(c10::kFloat).expand(shape).contiguous(); };
  if (other.device().is_cpu() && other.dim() == 0) {
    const Tensor b = other.to(c10::kFloat);  // the number's own value, in fp32
    return Trunc(at::div(full(self.to(t)), full(b))).to(t);
  }
  return Trunc(at::div(full(self.to(t)), full(other.to(t))).to(t));
}
Tensor DivScalarMode(const Tensor& self, const c10::Scalar& other, std::optional<c10::string_view> mode) {
  return DivMode(self, Wrapped(other), mode);
}

// Round half to even of an fp32 tensor, as std::nearbyint: (|x| + 2^23) - 2^23
// rounds |x| < 2^23 to an integer with fp32's own rounding (ties to even),
// the sign restored by a multiply; |x| >= 2^23, +-inf and NaN are x.
Tensor RoundFp32(const Tensor& x) {
  const Tensor a = at::abs(x);
  const Tensor r = at::add(a, Wrapped(kTwo23)).sub(Wrapped(kTwo23));
  return at::where(at::lt(a, Wrapped(kTwo23)), r.mul(at::sign(x)), x);
}
Tensor Round(const Tensor& self) {
  if (!at::isFloatingType(self.scalar_type())) return self.clone();
  return As(RoundFp32(Fp32(self)), self);
}
// ATen's round_decimals: nearbyint(x * 10^d) / 10^d, or for d < 0
// nearbyint(x / 10^-d) * 10^-d, with the power of ten as an fp32. The divisor
// is a filled tensor: the code generator divides by a number as a multiply by
// its reciprocal (one ulp off the quotient: 31 / 10 gave 3.1000001, not the
// CPU's 3.0999999), by a tensor with VectorE's divide.
Tensor RoundDecimals(const Tensor& self, int64_t decimals) {
  CheckFloating(self, "aten::round.decimals");
  const double p = static_cast<float>(std::pow(10.0, static_cast<double>(std::abs(decimals))));
  const Tensor x = Fp32(self);
  const Tensor r = decimals < 0 ? RoundFp32(at::div(x, at::full_like(x, p))).mul(Wrapped(p))
                                : at::div(RoundFp32(at::mul(x, Wrapped(p))), at::full_like(x, p));
  return As(r, self);
}

}  // namespace

// signbit: the sign bit itself (-0.0 and -NaN included), read as the high
// 16-bit half of each element (a view of its memory, little-endian), widened
// exactly to fp32 and compared with 0.
Tensor Signbit(const Tensor& self) {
  if (self.scalar_type() == c10::kBool) return at::zeros_like(self);
  CheckFloating(self, "aten::signbit");
  const Tensor flat = self.contiguous().reshape({-1});
  Tensor high = flat.view(c10::kShort);
  if (self.element_size() == 4) high = high.slice(0, 1, std::nullopt, 2);
  TORCH_CHECK_NOT_IMPLEMENTED(self.element_size() <= 4, "aten::signbit on neuron: not ", self.scalar_type());
  return at::lt(high.to(c10::kFloat), Wrapped(0.0)).reshape(self.sizes());
}

namespace {

// logit: log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps is given
// (NaN kept, as ATen's x < lo ? lo : x > hi ? hi : x). The bounds are in the
// input's dtype, as on the CPU: in bf16, eps = 1e-3 gives hi = 1, so x >= 1
// gives inf.
Tensor Logit(const Tensor& self, std::optional<double> eps) {
  CheckFloating(self, "aten::logit");
  Tensor z = Fp32(self);
  if (eps) {
    const Tensor lo = at::scalar_tensor(*eps, self.options().device(c10::kCPU));
    const Tensor hi = at::rsub(lo, 1.0);
    z = at::minimum(at::maximum(z, Wrapped(lo.item<double>())), Wrapped(hi.item<double>()));
  }
  return As(at::log(z.div(at::rsub(z, 1.0))), self);
}

// nan_to_num: NaN, +inf and -inf replaced (defaults 0 and the dtype's
// largest and lowest finite values) by masked fills on the device.
Tensor NanToNum(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                std::optional<double> neginf) {
  if (!at::isFloatingType(self.scalar_type())) return self.clone();
  double hi = std::numeric_limits<float>::max();
  if (self.scalar_type() == c10::kBFloat16) hi = static_cast<double>(std::numeric_limits<c10::BFloat16>::max());
  if (self.scalar_type() == c10::kHalf) hi = static_cast<double>(std::numeric_limits<c10::Half>::max());
  const double inf = std::numeric_limits<double>::infinity();
  Tensor r = at::masked_fill(self, at::isnan(self), nan.value_or(0.0));
  r = at::masked_fill(r, at::eq(self, Wrapped(inf)), posinf.value_or(hi));
  return at::masked_fill(r, at::eq(self, Wrapped(-inf)), neginf.value_or(-hi));
}

// special_entr: -x log(x) for x > 0, 0 at 0, -inf below 0, NaN for NaN.
Tensor Entr(const Tensor& self) {
  CheckFloating(self, "aten::special_entr");
  const Tensor x = Fp32(self);
  // -x log(x) is NaN at 0 (0 * -inf) and below 0 (log): both filled; NaN stays.
  const Tensor r = at::masked_fill(at::neg(x).mul(at::log(x)), at::eq(x, Wrapped(0.0)), 0.0);
  return As(at::masked_fill(r, at::lt(x, Wrapped(0.0)), -std::numeric_limits<double>::infinity()), self);
}

// softshrink: x - l above l, x + l below -l, x * 0 between (ATen's order:
// NaN stays NaN, -0.0 where x is negative).
Tensor Softshrink(const Tensor& self, const c10::Scalar& lambd) {
  CheckFloating(self, "aten::softshrink");
  TORCH_CHECK(lambd.toDouble() >= 0, "lambda must be greater or equal to 0, but found to be ", lambd.toDouble(), ".");
  const Tensor x = Fp32(self);
  const double l = static_cast<float>(lambd.toDouble());
  const Tensor outside = at::where(at::gt(x, Wrapped(l)), at::sub(x, Wrapped(l)), at::add(x, Wrapped(l)));
  return As(at::where(at::le(at::abs(x), Wrapped(l)), at::mul(x, Wrapped(0.0)), outside), self);
}
// hardshrink: 0 where -l <= x <= l, else x (NaN kept).
Tensor Hardshrink(const Tensor& self, const c10::Scalar& lambd) {
  CheckFloating(self, "aten::hardshrink");
  const Tensor x = Fp32(self);
  return As(at::masked_fill(x, at::le(at::abs(x), Wrapped(static_cast<float>(lambd.toDouble()))), 0.0), self);
}

// logaddexp2: a where a == b = +-inf, else max + log1p(exp2(-|a - b|)) / ln 2,
// in fp32 (ATen's formula; NaN propagates through the max).
Tensor Logaddexp2(const Tensor& self, const Tensor& other) {
  const c10::ScalarType t = at::result_type(self, other);
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(t), "aten::logaddexp2 on neuron: floating dtypes only, not ", t);
  const Tensor a = self.to(c10::kFloat), b = other.to(c10::kFloat);
  const Tensor m = at::maximum(a, b);
  const Tensor r = at::add(m, at::log1p(at::exp2(at::neg(at::abs(at::sub(a, b))))).mul(Wrapped(1.0 / kLn2)));
  const Tensor same_inf = at::logical_and(at::eq(at::abs(a), Wrapped(std::numeric_limits<double>::infinity())),
                                          at::eq(a, b));
  const Tensor out = at::where(same_inf, a.expand_as(r), r);
  return out.scalar_type() == t ? out : out.to(t);
}

// bitwise_and / or / xor of bool tensors: the logical ops (exact on 0/1).
// Integers are refused by name: their bits beyond 2^24 do not survive the
// engines' fp32.
void CheckBools(const Tensor& self, const Tensor& other, const char* op) {
  TORCH_CHECK_NOT_IMPLEMENTED(self.scalar_type() == c10::kBool && other.scalar_type() == c10::kBool, "aten::", op,
                              " on neuron: bool tensors only, not ", self.scalar_type(), " and ", other.scalar_type());
}
Tensor BitwiseAnd(const Tensor& a, const Tensor& b) { return CheckBools(a, b, "bitwise_and"), at::logical_and(a, b); }
Tensor BitwiseOr(const Tensor& a, const Tensor& b) { return CheckBools(a, b, "bitwise_or"), at::logical_or(a, b); }
Tensor BitwiseXor(const Tensor& a, const Tensor& b) { return CheckBools(a, b, "bitwise_xor"), at::logical_xor(a, b); }
// A Python number with a bool tensor: bool only when the number is a bool.
Tensor Bool(const c10::Scalar& s, const char* op) {
  TORCH_CHECK_NOT_IMPLEMENTED(s.isBoolean(), "aten::", op, " on neuron: bool tensors only, not a ", s.type());
  return Wrapped(s);
}
Tensor BitwiseAndS(const Tensor& a, const c10::Scalar& b) { return BitwiseAnd(a, Bool(b, "bitwise_and")); }
Tensor BitwiseOrS(const Tensor& a, const c10::Scalar& b) { return BitwiseOr(a, Bool(b, "bitwise_or")); }
Tensor BitwiseXorS(const Tensor& a, const c10::Scalar& b) { return BitwiseXor(a, Bool(b, "bitwise_xor")); }

// linalg_cross along `dim` (length 3): a1 b2 - a2 b1, ... with each product
// and difference rounded to the dtype (the CPU's bf16 results are exactly
// these; in fp32 its vector kernel may fuse a multiply-add: within an ulp),
// one device copy per component into the result (cat).
Tensor LinalgCross(const Tensor& self, const Tensor& other, int64_t dim) {
  TORCH_CHECK(self.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  const c10::ScalarType t = at::result_type(self, other);
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(t), "aten::linalg_cross on neuron: floating dtypes only, not ", t);
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK(self.size(d) == 3 && other.size(d) == 3, "linalg.cross: inputs dimension ", dim,
              " must have length 3. Got ", self.size(d), " and ", other.size(d));
  const Tensor a = self.to(t), b = other.to(t);
  auto c = [&](const Tensor& x, int64_t i) { return x.narrow(d, i, 1); };
  auto term = [&](int64_t i, int64_t j) { return at::mul(c(a, i), c(b, j)).sub(at::mul(c(a, j), c(b, i))); };
  return at::cat({term(1, 2), term(2, 0), term(0, 1)}, d);
}

Tensor& SinhOut(const Tensor& self, Tensor& out) { return CopyToOut(Sinh(self), out); }
Tensor& SincOut(const Tensor& self, Tensor& out) { return CopyToOut(Sinc(self), out); }
Tensor& LgammaOut(const Tensor& self, Tensor& out) { return CopyToOut(Lgamma(self), out); }
// mvlgamma is ATen's composite of lgamma_ and sum; its out= variant is not.
Tensor& MvlgammaOut(const Tensor& self, int64_t p, Tensor& out) { return CopyToOut(at::mvlgamma(self, p), out); }
Tensor& TruncOut(const Tensor& self, Tensor& out) { return CopyToOut(Trunc(self), out); }
Tensor& RoundOut(const Tensor& self, Tensor& out) { return CopyToOut(Round(self), out); }
Tensor& RoundDecimalsOut(const Tensor& self, int64_t decimals, Tensor& out) {
  return CopyToOut(RoundDecimals(self, decimals), out);
}
Tensor& SignbitOut(const Tensor& self, Tensor& out) { return CopyToOut(Signbit(self), out); }
Tensor& LogitOut(const Tensor& self, std::optional<double> eps, Tensor& out) { return CopyToOut(Logit(self, eps), out); }
Tensor& NanToNumOut(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf, Tensor& out) {
  return CopyToOut(NanToNum(self, nan, posinf, neginf), out);
}
Tensor& EntrOut(const Tensor& self, Tensor& out) { return CopyToOut(Entr(self), out); }
Tensor& SoftshrinkOut(const Tensor& self, const c10::Scalar& lambd, Tensor& out) {
  return CopyToOut(Softshrink(self, lambd), out);
}
Tensor& HardshrinkOut(const Tensor& self, const c10::Scalar& lambd, Tensor& out) {
  return CopyToOut(Hardshrink(self, lambd), out);
}
Tensor& Logaddexp2Out(const Tensor& self, const Tensor& other, Tensor& out) {
  return CopyToOut(Logaddexp2(self, other), out);
}
Tensor& BitwiseAndOut(const Tensor& a, const Tensor& b, Tensor& out) { return CopyToOut(BitwiseAnd(a, b), out); }
Tensor& BitwiseOrOut(const Tensor& a, const Tensor& b, Tensor& out) { return CopyToOut(BitwiseOr(a, b), out); }
Tensor& BitwiseXorOut(const Tensor& a, const Tensor& b, Tensor& out) { return CopyToOut(BitwiseXor(a, b), out); }
Tensor& BitwiseAndSOut(const Tensor& a, const c10::Scalar& b, Tensor& out) { return CopyToOut(BitwiseAndS(a, b), out); }
Tensor& BitwiseOrSOut(const Tensor& a, const c10::Scalar& b, Tensor& out) { return CopyToOut(BitwiseOrS(a, b), out); }
Tensor& BitwiseXorSOut(const Tensor& a, const c10::Scalar& b, Tensor& out) { return CopyToOut(BitwiseXorS(a, b), out); }
Tensor& BitwiseAnd_(Tensor& a, const Tensor& b) { return a.copy_(BitwiseAnd(a, b)); }
Tensor& BitwiseOr_(Tensor& a, const Tensor& b) { return a.copy_(BitwiseOr(a, b)); }
Tensor& BitwiseXor_(Tensor& a, const Tensor& b) { return a.copy_(BitwiseXor(a, b)); }
Tensor& BitwiseAndS_(Tensor& a, const c10::Scalar& b) { return a.copy_(BitwiseAndS(a, b)); }
Tensor& BitwiseOrS_(Tensor& a, const c10::Scalar& b) { return a.copy_(BitwiseOrS(a, b)); }
Tensor& BitwiseXorS_(Tensor& a, const c10::Scalar& b) { return a.copy_(BitwiseXorS(a, b)); }
Tensor& LinalgCrossOut(const Tensor& a, const Tensor& b, int64_t dim, Tensor& out) {
  return CopyToOut(LinalgCross(a, b, dim), out);
}
Tensor& DivModeOut(const Tensor& a, const Tensor& b, std::optional<c10::string_view> mode, Tensor& out) {
  return CopyToOut(DivMode(a, b, mode), out);
}
Tensor& DivScalarModeOut(const Tensor& a, const c10::Scalar& b, std::optional<c10::string_view> mode, Tensor& out) {
  return CopyToOut(DivScalarMode(a, b, mode), out);
}
Tensor& DivMode_(Tensor& a, const Tensor& b, std::optional<c10::string_view> mode) {
  return a.copy_(DivMode(a, b, mode));
}
Tensor& DivScalarMode_(Tensor& a, const c10::Scalar& b, std::optional<c10::string_view> mode) {
  return a.copy_(DivScalarMode(a, b, mode));
}
Tensor& Sinh_(Tensor& self) { return self.copy_(Sinh(self)); }
Tensor& Sinc_(Tensor& self) { return self.copy_(Sinc(self)); }
Tensor& Lgamma_(Tensor& self) { return self.copy_(Lgamma(self)); }
Tensor& Trunc_(Tensor& self) { return self.copy_(Trunc(self)); }
Tensor& Round_(Tensor& self) { return self.copy_(Round(self)); }
Tensor& RoundDecimals_(Tensor& self, int64_t decimals) { return self.copy_(RoundDecimals(self, decimals)); }
Tensor& Logit_(Tensor& self, std::optional<double> eps) { return self.copy_(Logit(self, eps)); }
Tensor& NanToNum_(Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  return self.copy_(NanToNum(self, nan, posinf, neginf));
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("sinh", &Sinh);
  m.impl("sinh.out", &SinhOut);
  m.impl("sinh_", &Sinh_);
  m.impl("sinc", &Sinc);
  m.impl("sinc.out", &SincOut);
  m.impl("sinc_", &Sinc_);
  m.impl("lgamma", &Lgamma);
  m.impl("lgamma.out", &LgammaOut);
  m.impl("lgamma_", &Lgamma_);
  m.impl("mvlgamma.out", &MvlgammaOut);
  m.impl("trunc", &Trunc);
  m.impl("trunc.out", &TruncOut);
  m.impl("trunc_", &Trunc_);
  m.impl("div.Tensor_mode", &DivMode);
  m.impl("div.Scalar_mode", &DivScalarMode);
  m.impl("div.out_mode", &DivModeOut);
  m.impl("div.Scalar_mode_out", &DivScalarModeOut);
  m.impl("div_.Tensor_mode", &DivMode_);
  m.impl("div_.Scalar_mode", &DivScalarMode_);
  m.impl("round", &Round);
  m.impl("round.out", &RoundOut);
  m.impl("round_", &Round_);
  m.impl("round.decimals", &RoundDecimals);
  m.impl("round.decimals_out", &RoundDecimalsOut);
  m.impl("round_.decimals", &RoundDecimals_);
  m.impl("signbit", &Signbit);
  m.impl("signbit.out", &SignbitOut);
  m.impl("logit", &Logit);
  m.impl("logit.out", &LogitOut);
  m.impl("logit_", &Logit_);
  m.impl("nan_to_num", &NanToNum);
  m.impl("nan_to_num.out", &NanToNumOut);
  m.impl("nan_to_num_", &NanToNum_);
  m.impl("special_entr", &Entr);
  m.impl("special_entr.out", &EntrOut);
  m.impl("softshrink", &Softshrink);
  m.impl("softshrink.out", &SoftshrinkOut);
  m.impl("hardshrink", &Hardshrink);
  m.impl("hardshrink.out", &HardshrinkOut);
  m.impl("bitwise_and.Tensor", &BitwiseAnd);
  m.impl("bitwise_or.Tensor", &BitwiseOr);
  m.impl("bitwise_xor.Tensor", &BitwiseXor);
  m.impl("bitwise_and.Scalar", &BitwiseAndS);
  m.impl("bitwise_or.Scalar", &BitwiseOrS);
  m.impl("bitwise_xor.Scalar", &BitwiseXorS);
  m.impl("bitwise_and.Tensor_out", &BitwiseAndOut);
  m.impl("bitwise_or.Tensor_out", &BitwiseOrOut);
  m.impl("bitwise_xor.Tensor_out", &BitwiseXorOut);
  m.impl("bitwise_and.Scalar_out", &BitwiseAndSOut);
  m.impl("bitwise_or.Scalar_out", &BitwiseOrSOut);
  m.impl("bitwise_xor.Scalar_out", &BitwiseXorSOut);
  m.impl("bitwise_and_.Tensor", &BitwiseAnd_);
  m.impl("bitwise_or_.Tensor", &BitwiseOr_);
  m.impl("bitwise_xor_.Tensor", &BitwiseXor_);
  m.impl("bitwise_and_.Scalar", &BitwiseAndS_);
  m.impl("bitwise_or_.Scalar", &BitwiseOrS_);
  m.impl("bitwise_xor_.Scalar", &BitwiseXorS_);
  m.impl("linalg_cross", &LinalgCross);
  m.impl("linalg_cross.out", &LinalgCrossOut);
  m.impl("logaddexp2", &Logaddexp2);
  m.impl("logaddexp2.out", &Logaddexp2Out);
}

}  // namespace torch_nsim
