// softmax, layer norm, RMSNorm and var in terms of core ops, written once:
// they are these ops' kernels on the CPU (CompositeExplicit), the graphs the
// device's eager kernels are generated from (backend/compile/
// decomposed_kernels.cc) and compile()'s and torch.compile's decompositions
// (backend/compile/decompositions.cc). Low-precision inputs are computed in
// fp32 and rounded once, as PyTorch's CPU kernels (opmath). Their values are
// checked against NumPy and PyTorch's CPU (cpu_kernels_test, torch_nsim's
// tests), not against another copy of the same formulas.
#include <algorithm>

#include "backend/composite/training_ops.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/ops.h"

namespace nsim {
namespace at {
namespace decomp {
namespace {

// (normalised x in fp32, mean, rstd) over the trailing dims.
std::tuple<Tensor, Tensor, Tensor> Normalize(const Tensor& input, const IntList& normalized_shape, double eps) {
  const IntList dims = LastDims(input.dim(), normalized_shape.size());
  const Tensor x = Upcast(input);
  const Tensor mean = x.mean(dims, true);
  const Tensor centered = x - mean;
  // square, not centered * centered: the same value, and one activation
  // that also sums the row (what a device kernel does for a variance).
  const Tensor rstd = rsqrt(square(centered).mean(dims, true) + eps);
  return {centered * rstd, mean, rstd};
}

Tensor Affine(Tensor y, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, ScalarType out) {
  if (weight && weight->defined()) y = y * *weight;
  if (bias && bias->defined()) y = y + *bias;
  return CastTo(y, out);
}

}  // namespace

Tensor Softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  SoftmaxMeta(self, dim, dtype);  // the op's own dtype and dim errors
  const Tensor x = dtype ? CastTo(self, *dtype) : self;
  const Tensor x32 = Upcast(x);
  const Tensor e = exp(x32 - x32.amax({dim}, true));
  return CastTo(e / e.sum({dim}, true), x.dtype());
}

std::tuple<Tensor, Tensor, Tensor> NativeLayerNorm(const Tensor& input, const IntList& normalized_shape,
                                                   const std::optional<Tensor>& weight,
                                                   const std::optional<Tensor>& bias, double eps) {
  NormMeta(input, normalized_shape, weight, bias);  // the op's own shape errors
  auto [y, mean, rstd] = Normalize(input, normalized_shape, eps);
  return {Affine(y, weight, bias, input.dtype()), mean, rstd};
}

std::tuple<Tensor, Tensor> FusedRmsNorm(const Tensor& input, const IntList& normalized_shape,
                                        const std::optional<Tensor>& weight, std::optional<double> eps) {
  NormMeta(input, normalized_shape, weight, std::nullopt);
  const Tensor x = Upcast(input);
  const IntList dims = LastDims(input.dim(), normalized_shape.size());
  const Tensor rstd = rsqrt((x * x).mean(dims, true) + eps.value_or(RmsNormDefaultEps(input.dtype())));
  return {Affine(x * rstd, weight, std::nullopt, input.dtype()), rstd};
}

Tensor Var(const Tensor& self, const std::optional<IntList>& dim, const std::optional<Scalar>& correction,
           bool keepdim) {
  ReduceMeta("var", self, dim, keepdim, std::nullopt, ReduceKind::kVar);
  const IntList dims = dim.value_or(IntList{});
  const std::vector<bool> reduced = DimMask(dims, self.dim());
  int64_t n = 1;
  for (int64_t d = 0; d < self.dim(); ++d) n *= (dims.empty() || reduced[d]) ? self.size(d) : 1;
  const Tensor x = Upcast(self);
  const Tensor centered = x - x.mean(dims, true);
  // PyTorch's divisor: never below 0 (correction > n gives inf or NaN, not a negative variance).
  const double divisor = std::max(0.0, static_cast<double>(n) - (correction ? correction->toDouble() : 1.0));
  return CastTo(square(centered).sum(dims, keepdim) / divisor, self.dtype());
}

}  // namespace decomp

NSIM_LIBRARY_IMPL(aten, CompositeExplicit, m) {
  m.impl("softmax.int", &decomp::Softmax);
  m.impl("native_layer_norm", &decomp::NativeLayerNorm);
  m.impl("_fused_rms_norm", &decomp::FusedRmsNorm);
  m.impl("var.correction", &decomp::Var);
}

}  // namespace at
}  // namespace nsim
