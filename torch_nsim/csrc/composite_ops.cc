// Ops torch_nsim composes from the simulator's device kernels, registered
// for PrivateUse1 because the simulator has no op of their own: clamp and
// hardtanh (maximum / minimum), rsub, leaky_relu, elu, std / var_mean / std_mean
// (var.correction, mean, sqrt), flip / roll / tril / triu (device copies of
// slices), trace and torch.norm (linalg_vector_norm). Each step is a device
// kernel or copy, timed by the model like any other; values follow PyTorch's
// CPU kernels (NaN included).
#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/ScalarOps.h>
#include <ATen/WrapDimUtils.h>
#include <torch/library.h>

#include "torch_nsim/csrc/out_variant.h"
#include "torch_nsim/csrc/wrapped_number.h"

namespace torch_nsim {
namespace {

using at::Tensor;

// --- clamp, hardtanh, rsub: the pointwise table's maximum / minimum / sub
// (maximum and minimum propagate NaN, as clamp does; a bound above the
// other gives the upper one, as min(max(x, lo), hi) does on the CPU).

Tensor Bounded(const Tensor& self, const std::optional<Tensor>& lo, const std::optional<Tensor>& hi) {
  const bool has_lo = lo && lo->defined(), has_hi = hi && hi->defined();
  TORCH_CHECK(has_lo || has_hi, "torch.clamp: At least one of 'min' or 'max' must not be None");
  Tensor r = has_lo ? at::maximum(self, *lo) : self;
  return has_hi ? at::minimum(r, *hi) : r;
}

std::optional<Tensor> WrappedOpt(const std::optional<c10::Scalar>& s) {
  return s ? std::optional<Tensor>(Wrapped(*s)) : std::nullopt;
}

Tensor Clamp(const Tensor& self, const std::optional<c10::Scalar>& lo, const std::optional<c10::Scalar>& hi) {
  return Bounded(self, WrappedOpt(lo), WrappedOpt(hi));
}
Tensor ClampMin(const Tensor& self, const c10::Scalar& lo) { return Bounded(self, Wrapped(lo), std::nullopt); }
Tensor ClampMax(const Tensor& self, const c10::Scalar& hi) { return Bounded(self, std::nullopt, Wrapped(hi)); }
Tensor ClampMinT(const Tensor& self, const Tensor& lo) { return Bounded(self, lo, std::nullopt); }
Tensor ClampMaxT(const Tensor& self, const Tensor& hi) { return Bounded(self, std::nullopt, hi); }
Tensor Hardtanh(const Tensor& self, const c10::Scalar& lo, const c10::Scalar& hi) {
  return Bounded(self, Wrapped(lo), Wrapped(hi));
}

Tensor& ClampOut(const Tensor& self, const std::optional<c10::Scalar>& lo, const std::optional<c10::Scalar>& hi,
                 Tensor& out) {
  return CopyToOut(Clamp(self, lo, hi), out);
}
Tensor& ClampTOut(const Tensor& self, const std::optional<Tensor>& lo, const std::optional<Tensor>& hi, Tensor& out) {
  return CopyToOut(Bounded(self, lo, hi), out);
}
Tensor& ClampMinOut(const Tensor& self, const c10::Scalar& lo, Tensor& out) { return CopyToOut(ClampMin(self, lo), out); }
Tensor& ClampMaxOut(const Tensor& self, const c10::Scalar& hi, Tensor& out) { return CopyToOut(ClampMax(self, hi), out); }
Tensor& ClampMinTOut(const Tensor& self, const Tensor& lo, Tensor& out) { return CopyToOut(ClampMinT(self, lo), out); }
Tensor& ClampMaxTOut(const Tensor& self, const Tensor& hi, Tensor& out) { return CopyToOut(ClampMaxT(self, hi), out); }
Tensor& HardtanhOut(const Tensor& self, const c10::Scalar& lo, const c10::Scalar& hi, Tensor& out) {
  return CopyToOut(Hardtanh(self, lo, hi), out);
}
Tensor& Clamp_(Tensor& self, const std::optional<c10::Scalar>& lo, const std::optional<c10::Scalar>& hi) {
  return self.copy_(Clamp(self, lo, hi));
}
Tensor& ClampT_(Tensor& self, const std::optional<Tensor>& lo, const std::optional<Tensor>& hi) {
  return self.copy_(Bounded(self, lo, hi));
}
Tensor& ClampMin_(Tensor& self, const c10::Scalar& lo) { return self.copy_(ClampMin(self, lo)); }
Tensor& ClampMax_(Tensor& self, const c10::Scalar& hi) { return self.copy_(ClampMax(self, hi)); }
Tensor& ClampMinT_(Tensor& self, const Tensor& lo) { return self.copy_(ClampMinT(self, lo)); }
Tensor& ClampMaxT_(Tensor& self, const Tensor& hi) { return self.copy_(ClampMaxT(self, hi)); }
Tensor& Hardtanh_(Tensor& self, const c10::Scalar& lo, const c10::Scalar& hi) {
  return self.copy_(Hardtanh(self, lo, hi));
}

// other - alpha * self: the table's sub with its operands swapped.
Tensor RsubTensor(const Tensor& self, const Tensor& other, const c10::Scalar& alpha) {
  return at::sub(other, self, alpha);
}

// --- std, var_mean, std_mean over the device's var.correction and mean. std
// is the square root of the fp32 variance, rounded once to the input dtype.
Tensor Std(const Tensor& self, at::OptionalIntArrayRef dim, const std::optional<c10::Scalar>& correction,
           bool keepdim) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()),
                              "aten::std.correction on neuron: floating dtypes only, not ", self.scalar_type());
  const Tensor x = self.scalar_type() == c10::kFloat ? self : self.to(c10::kFloat);
  return at::var(x, dim, correction, keepdim).sqrt().to(self.scalar_type());
}
std::tuple<Tensor, Tensor> VarMean(const Tensor& self, at::OptionalIntArrayRef dim,
                                   const std::optional<c10::Scalar>& correction, bool keepdim) {
  return {at::var(self, dim, correction, keepdim), at::mean(self, dim, keepdim)};
}
std::tuple<Tensor, Tensor> StdMean(const Tensor& self, at::OptionalIntArrayRef dim,
                                   const std::optional<c10::Scalar>& correction, bool keepdim) {
  return {Std(self, dim, correction, keepdim), at::mean(self, dim, keepdim)};
}
Tensor& StdOut(const Tensor& self, at::OptionalIntArrayRef dim, const std::optional<c10::Scalar>& correction,
               bool keepdim, Tensor& out) {
  return CopyToOut(Std(self, dim, correction, keepdim), out);
}

// --- flip and roll as device copies of slices (no negative strides in torch).

// Each dim in turn: slice i of the result is slice n-1-i of the input, one
// device copy each.
Tensor Flip(const Tensor& self, at::IntArrayRef dims) {
  std::vector<bool> seen(std::max<int64_t>(self.dim(), 1), false);
  Tensor src = self;
  for (int64_t d : dims) {
    d = at::maybe_wrap_dim(d, self.dim());
    TORCH_CHECK(!seen[d], "dims has duplicates, original flip dims size=", dims.size(), ", but unique flip dims size=",
                dims.size() - 1);
    seen[d] = true;
    if (self.dim() == 0 || self.numel() == 0) continue;
    Tensor dst = at::empty_like(src, at::MemoryFormat::Contiguous);
    const int64_t n = src.size(d);
    for (int64_t i = 0; i < n; ++i) dst.select(d, i).copy_(src.select(d, n - 1 - i));
    src = dst;
  }
  return src.is_same(self) ? self.clone() : src;
}

// Each (shift, dim) in turn: the last `s` slices, then the rest (cat: one
// device copy per part). With no dims the flattened tensor rolls.
Tensor Roll(const Tensor& self, at::IntArrayRef shifts, at::IntArrayRef dims) {
  TORCH_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty()) {
    TORCH_CHECK(shifts.size() == 1, "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", 0);
    return Roll(self.flatten(), shifts, {0}).view(self.sizes());
  }
  TORCH_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  Tensor t = self;
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t d = at::maybe_wrap_dim(dims[k], self.dim());
    const int64_t n = t.size(d);
    const int64_t s = n == 0 ? 0 : ((shifts[k] % n) + n) % n;
    if (s == 0) continue;
    t = at::cat({t.narrow(d, n - s, s), t.narrow(d, 0, n - s)}, d);
  }
  return t.is_same(self) ? self.clone() : t;
}

// --- tril / triu: a zero-filled result (the fill kernel), then one device
// copy per row of the part kept (NaN and inf outside it do not leak, as they
// would through a multiply by a 0/1 mask).
Tensor Triangle(const Tensor& self, int64_t diagonal, bool lower, const char* name) {
  TORCH_CHECK(self.dim() >= 2, name, ": input tensor must have at least 2 dimensions");
  Tensor out = at::zeros_like(self, at::MemoryFormat::Contiguous);
  const int64_t rows = self.size(-2), cols = self.size(-1);
  for (int64_t i = 0; i < rows; ++i) {
    // lower: columns [0, i + diagonal]; upper: columns [i + diagonal, cols)
    const int64_t begin = lower ? 0 : std::clamp<int64_t>(i + diagonal, 0, cols);
    const int64_t end = lower ? std::clamp<int64_t>(i + diagonal + 1, 0, cols) : cols;
    if (end <= begin) continue;
    out.narrow(-2, i, 1).narrow(-1, begin, end - begin).copy_(self.narrow(-2, i, 1).narrow(-1, begin, end - begin));
  }
  return out;
}
Tensor Tril(const Tensor& self, int64_t diagonal) { return Triangle(self, diagonal, true, "tril"); }
Tensor Triu(const Tensor& self, int64_t diagonal) { return Triangle(self, diagonal, false, "triu"); }
Tensor& TrilOut(const Tensor& self, int64_t diagonal, Tensor& out) { return CopyToOut(Tril(self, diagonal), out); }
Tensor& TriuOut(const Tensor& self, int64_t diagonal, Tensor& out) { return CopyToOut(Triu(self, diagonal), out); }
Tensor& Tril_(Tensor& self, int64_t diagonal) { return self.copy_(Tril(self, diagonal)); }
Tensor& Triu_(Tensor& self, int64_t diagonal) { return self.copy_(Triu(self, diagonal)); }

// trace: the sum of the diagonal (a strided view the device reads as it is).
Tensor Trace(const Tensor& self) {
  TORCH_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()),
                              "aten::trace on neuron: floating dtypes only, not ", self.scalar_type());
  return at::sum(self.diagonal());
}

// leaky_relu: relu(x) + slope * min(x, 0), which is x for x > 0 and
// slope * x otherwise, NaN and infinities as the CPU's x > 0 ? x : x * slope.
Tensor LeakyRelu(const Tensor& self, const c10::Scalar& slope) {
  return at::relu(self).add(at::minimum(self, Wrapped(0.0)), slope);
}
Tensor& LeakyReluOut(const Tensor& self, const c10::Scalar& slope, Tensor& out) {
  return CopyToOut(LeakyRelu(self, slope), out);
}
Tensor& LeakyRelu_(Tensor& self, const c10::Scalar& slope) { return self.copy_(LeakyRelu(self, slope)); }

// elu (and celu, selu, which call it): scale * relu(x) + alpha * scale *
// (exp(input_scale * min(x, 0)) - 1) in fp32, rounded once to the dtype:
// x * scale for x > 0 (the second term is exp(0) - 1 = 0), the exponential
// branch otherwise, NaN kept, as the CPU's x > 0 ? ... : ....
Tensor Elu(const Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale, const c10::Scalar& input_scale) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()),
                              "aten::elu on neuron: floating dtypes only, not ", self.scalar_type());
  const Tensor x = self.scalar_type() == c10::kFloat ? self : self.to(c10::kFloat);
  const Tensor neg = at::minimum(x, Wrapped(0.0)).mul(input_scale).exp().sub(Wrapped(1.0));
  const Tensor r = at::relu(x).mul(scale).add(neg, alpha.toDouble() * scale.toDouble());
  return r.scalar_type() == self.scalar_type() ? r : r.to(self.scalar_type());
}
Tensor& EluOut(const Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale,
               const c10::Scalar& input_scale, Tensor& out) {
  return CopyToOut(Elu(self, alpha, scale, input_scale), out);
}
Tensor& Elu_(Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale, const c10::Scalar& input_scale) {
  return self.copy_(Elu(self, alpha, scale, input_scale));
}

// torch.norm's vector-norm overloads: linalg_vector_norm (p absent: 2).
Tensor NormDim(const Tensor& self, const std::optional<c10::Scalar>& p, at::IntArrayRef dim, bool keepdim) {
  return at::linalg_vector_norm(self, p.value_or(2), dim, keepdim);
}
Tensor NormAll(const Tensor& self, const c10::Scalar& p) { return at::linalg_vector_norm(self, p); }
Tensor& NormOut(const Tensor& self, const std::optional<c10::Scalar>& p, at::IntArrayRef dim, bool keepdim,
                Tensor& out) {
  return CopyToOut(NormDim(self, p, dim, keepdim), out);
}

// isneginf / isposinf: x == -inf / +inf (a device comparison; exact in
// every floating dtype).
Tensor IsNegInf(const Tensor& self) { return at::eq(self, Wrapped(-std::numeric_limits<double>::infinity())); }
Tensor IsPosInf(const Tensor& self) { return at::eq(self, Wrapped(std::numeric_limits<double>::infinity())); }
Tensor& IsNegInfOut(const Tensor& self, Tensor& out) { return CopyToOut(IsNegInf(self), out); }
Tensor& IsPosInfOut(const Tensor& self, Tensor& out) { return CopyToOut(IsPosInf(self), out); }

// any / all: a count of the truthy (x != 0, NaN included) or falsy elements
// over `dims` (every dim when empty): device comparison, cast and sum, then
// count > 0 (any) or count == 0 (all). Exact: a sum of ones stays positive.
Tensor Truthy(const Tensor& self, at::IntArrayRef dims, bool keepdim, bool want_all) {
  TORCH_CHECK_NOT_IMPLEMENTED(self.scalar_type() != c10::kByte, "aten::any/all on neuron: uint8 results");
  const Tensor hits = want_all ? at::eq(self, Wrapped(0.0)) : at::ne(self, Wrapped(0.0));
  const Tensor count = at::sum(hits.to(c10::kFloat), dims, keepdim);
  return want_all ? at::eq(count, Wrapped(0.0)) : at::gt(count, Wrapped(0.0));
}
at::IntArrayRef DimsOrAll(const at::OptionalIntArrayRef& dim) { return dim ? *dim : at::IntArrayRef{}; }
Tensor AnyAll(const Tensor& self) { return Truthy(self, {}, false, false); }
Tensor AnyDim(const Tensor& self, int64_t dim, bool keepdim) { return Truthy(self, dim, keepdim, false); }
Tensor AnyDims(const Tensor& self, at::OptionalIntArrayRef dim, bool keepdim) {
  return Truthy(self, DimsOrAll(dim), keepdim, false);
}
Tensor AllAll(const Tensor& self) { return Truthy(self, {}, false, true); }
Tensor AllDim(const Tensor& self, int64_t dim, bool keepdim) { return Truthy(self, dim, keepdim, true); }
Tensor AllDims(const Tensor& self, at::OptionalIntArrayRef dim, bool keepdim) {
  return Truthy(self, DimsOrAll(dim), keepdim, true);
}
Tensor& AnyAllOut(const Tensor& self, Tensor& out) { return CopyToOut(AnyAll(self), out); }
Tensor& AnyDimOut(const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  return CopyToOut(AnyDim(self, dim, keepdim), out);
}
Tensor& AnyDimsOut(const Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, Tensor& out) {
  return CopyToOut(AnyDims(self, dim, keepdim), out);
}
Tensor& AllAllOut(const Tensor& self, Tensor& out) { return CopyToOut(AllAll(self), out); }
Tensor& AllDimOut(const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  return CopyToOut(AllDim(self, dim, keepdim), out);
}
Tensor& AllDimsOut(const Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, Tensor& out) {
  return CopyToOut(AllDims(self, dim, keepdim), out);
}

// F.logsigmoid(x, out=y): the fallback copies single-output out= variants
// only; this one has the result and the (empty on the device) buffer.
std::tuple<Tensor&, Tensor&> LogSigmoidForwardOut(const Tensor& self, Tensor& output, Tensor& buffer) {
  const auto [result, buf] = at::log_sigmoid_forward(self);
  CopyToOut(result, output);
  CopyToOut(buf, buffer);
  return {output, buffer};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("log_sigmoid_forward.output", &LogSigmoidForwardOut);
  m.impl("isneginf", &IsNegInf);
  m.impl("isposinf", &IsPosInf);
  m.impl("isneginf.out", &IsNegInfOut);
  m.impl("isposinf.out", &IsPosInfOut);
  m.impl("any", &AnyAll);
  m.impl("any.dim", &AnyDim);
  m.impl("any.dims", &AnyDims);
  m.impl("all", &AllAll);
  m.impl("all.dim", &AllDim);
  m.impl("all.dims", &AllDims);
  m.impl("any.all_out", &AnyAllOut);
  m.impl("any.out", &AnyDimOut);
  m.impl("any.dims_out", &AnyDimsOut);
  m.impl("all.all_out", &AllAllOut);
  m.impl("all.out", &AllDimOut);
  m.impl("all.dims_out", &AllDimsOut);
  m.impl("clamp", &Clamp);
  m.impl("clamp.Tensor", &Bounded);
  m.impl("clamp_min", &ClampMin);
  m.impl("clamp_max", &ClampMax);
  m.impl("clamp_min.Tensor", &ClampMinT);
  m.impl("clamp_max.Tensor", &ClampMaxT);
  m.impl("clamp.out", &ClampOut);
  m.impl("clamp.Tensor_out", &ClampTOut);
  m.impl("clamp_min.out", &ClampMinOut);
  m.impl("clamp_max.out", &ClampMaxOut);
  m.impl("clamp_min.Tensor_out", &ClampMinTOut);
  m.impl("clamp_max.Tensor_out", &ClampMaxTOut);
  m.impl("clamp_", &Clamp_);
  m.impl("clamp_.Tensor", &ClampT_);
  m.impl("clamp_min_", &ClampMin_);
  m.impl("clamp_max_", &ClampMax_);
  m.impl("clamp_min_.Tensor", &ClampMinT_);
  m.impl("clamp_max_.Tensor", &ClampMaxT_);
  m.impl("hardtanh", &Hardtanh);
  m.impl("hardtanh.out", &HardtanhOut);
  m.impl("hardtanh_", &Hardtanh_);
  m.impl("rsub.Tensor", &RsubTensor);
  m.impl("std.correction", &Std);
  m.impl("std.correction_out", &StdOut);
  m.impl("var_mean.correction", &VarMean);
  m.impl("std_mean.correction", &StdMean);
  m.impl("flip", &Flip);
  m.impl("roll", &Roll);
  m.impl("tril", &Tril);
  m.impl("triu", &Triu);
  m.impl("tril.out", &TrilOut);
  m.impl("triu.out", &TriuOut);
  m.impl("tril_", &Tril_);
  m.impl("triu_", &Triu_);
  m.impl("trace", &Trace);
  m.impl("leaky_relu", &LeakyRelu);
  m.impl("leaky_relu.out", &LeakyReluOut);
  m.impl("leaky_relu_", &LeakyRelu_);
  m.impl("elu", &Elu);
  m.impl("elu.out", &EluOut);
  m.impl("elu_", &Elu_);
  m.impl("norm.ScalarOpt_dim", &NormDim);
  m.impl("norm.Scalar", &NormAll);
  m.impl("norm.out", &NormOut);
}

}  // namespace torch_nsim
