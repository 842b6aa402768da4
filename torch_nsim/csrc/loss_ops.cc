// Losses and reductions torch_nsim composes from the simulator's device
// kernels (registered for PrivateUse1; the simulator has no op of their own):
// mse_loss, smooth_l1_loss, huber_loss, binary_cross_entropy, glu, nansum,
// prod and renorm. Pointwise steps in fp32 (ATen's opmath for reduced
// floats), the reduction the device's sum, mean or multiplies over the fp32
// values, the result rounded once to the input dtype.
#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/core/Reduction.h>
#include <torch/library.h>

#include "torch_nsim/csrc/out_variant.h"
#include "torch_nsim/csrc/wrapped_number.h"

namespace torch_nsim {
namespace {

using at::Tensor;

// The elementwise loss `l` (fp32) reduced as `reduction` asks, in the dtype
// of the operands.
Tensor Reduced(const Tensor& l, int64_t reduction, c10::ScalarType dtype, const char* op) {
  Tensor r;
  switch (reduction) {
    case at::Reduction::None: r = l; break;
    case at::Reduction::Mean: r = at::mean(l); break;
    case at::Reduction::Sum: r = at::sum(l); break;
    default: TORCH_CHECK(false, op, ": ", reduction, " is not a valid value for reduction");
  }
  return r.scalar_type() == dtype ? r : r.to(dtype);
}

// |self - target| in fp32 (broadcast, as the CPU's loss kernels).
Tensor Difference(const Tensor& self, const Tensor& target, const char* op, c10::ScalarType* dtype) {
  *dtype = at::result_type(self, target);
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(*dtype), op, " on neuron: floating dtypes only, not ", *dtype);
  return at::sub(self.to(c10::kFloat), target.to(c10::kFloat));
}

Tensor MseLoss(const Tensor& self, const Tensor& target, int64_t reduction) {
  c10::ScalarType t;
  const Tensor d = Difference(self, target, "aten::mse_loss", &t);
  return Reduced(d.mul(d), reduction, t, "aten::mse_loss");
}

// smooth_l1: 0.5 z^2 / beta where z = |x - y| < beta, else z - 0.5 beta
// (beta 0: the l1 loss z), ATen's order of operations.
Tensor SmoothL1Loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  TORCH_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  c10::ScalarType t;
  const Tensor z = at::abs(Difference(self, target, "aten::smooth_l1_loss", &t));
  if (beta == 0) return Reduced(z, reduction, t, "aten::smooth_l1_loss");
  const double b = static_cast<float>(beta);
  const Tensor quad = at::mul(z, Wrapped(0.5)).mul(z).div(Wrapped(b));
  const Tensor l = at::where(at::lt(z, Wrapped(b)), quad, at::sub(z, Wrapped(0.5 * b)));
  return Reduced(l, reduction, t, "aten::smooth_l1_loss");
}

// huber: 0.5 z^2 where z = |x - y| < delta, else delta (z - 0.5 delta).
Tensor HuberLoss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  TORCH_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  c10::ScalarType t;
  const Tensor z = at::abs(Difference(self, target, "aten::huber_loss", &t));
  const double d = static_cast<float>(delta);
  const Tensor quad = at::mul(z, Wrapped(0.5)).mul(z);
  const Tensor lin = at::sub(z, Wrapped(0.5 * d)).mul(Wrapped(d));
  return Reduced(at::where(at::lt(z, Wrapped(d)), quad, lin), reduction, t, "aten::huber_loss");
}

// binary_cross_entropy: (t - 1) max(log1p(-x), -100) - t max(log(x), -100),
// times the weight, ATen's formula in fp32. Like the CPU it refuses an input
// outside [0, 1] (NaN included): one device check, read on the host.
Tensor BinaryCrossEntropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()),
                              "aten::binary_cross_entropy on neuron: floating dtypes only, not ", self.scalar_type());
  const Tensor x = self.to(c10::kFloat), t = target.to(c10::kFloat);
  const Tensor inside = at::logical_and(at::ge(x, Wrapped(0.0)), at::le(x, Wrapped(1.0)));
  TORCH_CHECK(!at::any(at::logical_not(inside)).item<bool>(), "all elements of input should be between 0 and 1");
  const Tensor log_x = at::maximum(at::log(x), Wrapped(-100.0));
  const Tensor log_1mx = at::maximum(at::log1p(at::neg(x)), Wrapped(-100.0));
  Tensor l = at::sub(t, Wrapped(1.0)).mul(log_1mx).sub(at::mul(t, log_x));
  if (weight && weight->defined()) l = l.mul(weight->to(c10::kFloat));
  return Reduced(l, reduction, self.scalar_type(), "aten::binary_cross_entropy");
}

// glu: the first half of `dim` times the sigmoid of the second, in fp32.
Tensor Glu(const Tensor& self, int64_t dim) {
  TORCH_CHECK(self.dim() > 0, "glu does not support scalars because halving size must be even");
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()),
                              "aten::glu on neuron: floating dtypes only, not ", self.scalar_type());
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  const int64_t n = self.size(d);
  TORCH_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ", n);
  const Tensor x = self.to(c10::kFloat);
  const Tensor r = x.narrow(d, 0, n / 2).mul(at::sigmoid(x.narrow(d, n / 2, n / 2)));
  return r.scalar_type() == self.scalar_type() ? r : r.to(self.scalar_type());
}

// nansum: the sum with NaN counted as 0 (a masked fill, then the device sum).
Tensor Nansum(const Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, std::optional<c10::ScalarType> dtype) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()),
                              "aten::nansum on neuron: floating dtypes only, not ", self.scalar_type());
  return at::sum(at::masked_fill(self, at::isnan(self), 0.0), dim, keepdim, dtype);
}

// prod along `dim`: a pairwise tree of device multiplies in fp32 (first
// half times second half, an odd last element carried along: ceil(log2 n)
// levels), rounded once to the result dtype. The CPU's vectorised reduction
// does not multiply in sequence either; both stay within OpInfo's tolerance.
// Integer products (int64 results) are refused by name.
Tensor ProdDim(const Tensor& self, int64_t dim, bool keepdim, std::optional<c10::ScalarType> dtype) {
  const c10::ScalarType t = dtype.value_or(self.scalar_type());
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()) && at::isFloatingType(t),
                              "aten::prod on neuron: floating dtypes only, not ", self.scalar_type(), " -> ", t);
  const Tensor x0 = self.dim() == 0 ? self.reshape({1}) : self;
  const int64_t d = at::maybe_wrap_dim(dim, x0.dim());
  Tensor x = x0.to(c10::kFloat).movedim(d, -1);
  if (x.size(-1) == 0) {  // the empty product: 1 (a device fill)
    std::vector<int64_t> one(x.sizes().begin(), x.sizes().end());
    one.back() = 1;
    x = at::ones(one, x.options());
  }
  bool computed = x0.scalar_type() != c10::kFloat || x.size(-1) != 1;  // x is no longer self's memory
  while (x.size(-1) > 1) {
    const int64_t n = x.size(-1), h = n / 2;
    Tensor y = at::mul(x.narrow(-1, 0, h), x.narrow(-1, h, h));
    x = n % 2 == 0 ? y : at::cat({y, x.narrow(-1, 2 * h, 1)}, -1);
  }
  Tensor r = x.movedim(-1, d);
  if (!keepdim || self.dim() == 0) r = r.squeeze(d);
  // One fp32 element per product: a copy, not a view of the input.
  return computed || t != c10::kFloat ? r.to(t) : r.clone();
}
Tensor Prod(const Tensor& self, std::optional<c10::ScalarType> dtype) {
  return ProdDim(self.reshape({-1}), 0, false, dtype);
}

// renorm, ATen's way: each slice along `dim` whose p-norm (over the other
// dims, in fp32) exceeds maxnorm is scaled by maxnorm / (norm + 1e-7), the
// factor rounded to the input dtype (NaN norms leave the slice alone).
Tensor Renorm(const Tensor& self, const c10::Scalar& p, int64_t dim, const c10::Scalar& maxnorm) {
  TORCH_CHECK(p.toDouble() > 0, "renorm: non-positive-norm not supported");
  TORCH_CHECK(maxnorm.toDouble() >= 0, "renorm: expected maxnorm to be >= 0 but got ", maxnorm.toDouble());
  TORCH_CHECK(self.dim() > 1, "renorm: input needs at least 2 dimensions, got ", self.dim(), " dimensions");
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()),
                              "aten::renorm on neuron: floating dtypes only, not ", self.scalar_type());
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (i != d) dims.push_back(i);
  }
  const Tensor norm = at::linalg_vector_norm(self.to(c10::kFloat), p, dims, /*keepdim=*/true);
  const double m = static_cast<float>(maxnorm.toDouble());
  const Tensor scaled = at::div(at::full_like(norm, m), at::add(norm, Wrapped(1e-7)));
  const Tensor factor = at::masked_fill(scaled, at::logical_not(at::gt(norm, Wrapped(m))), 1.0);
  return at::mul(self, factor.to(self.scalar_type()));
}

Tensor& MseLossOut(const Tensor& self, const Tensor& target, int64_t reduction, Tensor& out) {
  return CopyToOut(MseLoss(self, target, reduction), out);
}
Tensor& SmoothL1LossOut(const Tensor& self, const Tensor& target, int64_t reduction, double beta, Tensor& out) {
  return CopyToOut(SmoothL1Loss(self, target, reduction, beta), out);
}
Tensor& HuberLossOut(const Tensor& self, const Tensor& target, int64_t reduction, double delta, Tensor& out) {
  return CopyToOut(HuberLoss(self, target, reduction, delta), out);
}
Tensor& BinaryCrossEntropyOut(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                              int64_t reduction, Tensor& out) {
  return CopyToOut(BinaryCrossEntropy(self, target, weight, reduction), out);
}
Tensor& GluOut(const Tensor& self, int64_t dim, Tensor& out) { return CopyToOut(Glu(self, dim), out); }
Tensor& NansumOut(const Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                  std::optional<c10::ScalarType> dtype, Tensor& out) {
  return CopyToOut(Nansum(self, dim, keepdim, dtype), out);
}
Tensor& ProdDimOut(const Tensor& self, int64_t dim, bool keepdim, std::optional<c10::ScalarType> dtype, Tensor& out) {
  return CopyToOut(ProdDim(self, dim, keepdim, dtype), out);
}
Tensor& ProdOut(const Tensor& self, std::optional<c10::ScalarType> dtype, Tensor& out) {
  return CopyToOut(Prod(self, dtype), out);
}
Tensor& RenormOut(const Tensor& self, const c10::Scalar& p, int64_t dim, const c10::Scalar& maxnorm, Tensor& out) {
  return CopyToOut(Renorm(self, p, dim, maxnorm), out);
}
Tensor& Renorm_(Tensor& self, const c10::Scalar& p, int64_t dim, const c10::Scalar& maxnorm) {
  return self.copy_(Renorm(self, p, dim, maxnorm));
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("mse_loss", &MseLoss);
  m.impl("mse_loss.out", &MseLossOut);
  m.impl("smooth_l1_loss", &SmoothL1Loss);
  m.impl("smooth_l1_loss.out", &SmoothL1LossOut);
  m.impl("huber_loss", &HuberLoss);
  m.impl("huber_loss.out", &HuberLossOut);
  m.impl("binary_cross_entropy", &BinaryCrossEntropy);
  m.impl("binary_cross_entropy.out", &BinaryCrossEntropyOut);
  m.impl("glu", &Glu);
  m.impl("glu.out", &GluOut);
  m.impl("nansum", &Nansum);
  m.impl("prod", &Prod);
  m.impl("prod.dim_int", &ProdDim);
  m.impl("prod.out", &ProdOut);
  m.impl("prod.int_out", &ProdDimOut);
  m.impl("renorm", &Renorm);
  m.impl("renorm.out", &RenormOut);
  m.impl("renorm_", &Renorm_);
  m.impl("nansum.out", &NansumOut);
}

}  // namespace torch_nsim
