#include "benchmarks/rmsnorm/implementations.h"

#include "backend/compile/compile.h"
#include "backend/ops.h"

namespace nsim {
namespace study {

at::Tensor RmsNormOpByOp(const at::Tensor& x, const at::Tensor& w, double eps) {
  const at::Tensor sq = x * x;                         // aten::mul
  const at::Tensor ms = sq.mean({-1}, /*keepdim=*/true);  // aten::mean
  const at::Tensor shifted = ms + eps;                 // aten::add (the scalar is copied to the device)
  const at::Tensor inv = at::rsqrt(shifted);           // aten::rsqrt
  return x * inv * w;                                  // aten::mul (normalise), aten::mul (scale)
}

std::vector<Implementation> StudyImplementations(const StudyOptions& o) {
  const double eps = o.eps;
  const int64_t d = o.shape.back();
  std::vector<Implementation> impls;
  impls.push_back({"op by op", [eps](const at::Tensor& x, const at::Tensor& w) { return RmsNormOpByOp(x, w, eps); }});
  impls.push_back({"rms_norm", [eps, d](const at::Tensor& x, const at::Tensor& w) {
                     return at::rms_norm(x, {d}, w, eps);
                   }});
  // torch.compile(backend="neuron", fullgraph=True) of the op-by-op function:
  // the first (unprofiled) step traces and compiles; later steps replay.
  auto op_by_op = [eps](const at::Tensor& x, const at::Tensor& w) { return RmsNormOpByOp(x, w, eps); };
  using Compiled = decltype(nsim::compile(op_by_op));
  auto compiled = std::make_shared<Compiled>(nsim::compile(op_by_op, nsim::CompileOptions{.fullgraph = true}));
  impls.push_back({"compiled", [compiled](const at::Tensor& x, const at::Tensor& w) { return (*compiled)(x, w); }});
  return impls;
}

}  // namespace study
}  // namespace nsim
