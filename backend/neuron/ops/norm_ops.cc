// Neuron kernels for softmax and the norms. softmax and layer norm are one
// generated kernel each over rows of the normalised dims, computed in fp32
// with one rounding at the end (as the CPU reference); _fused_rms_norm is
// the hand-scheduled kernel of kernels/rms_norm_kernel.h.
#include <iomanip>
#include <numeric>
#include <sstream>

#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"
#include "backend/neuron/kernels/rms_norm_kernel.h"
#include "backend/neuron/ops/row_layout.h"
#include "backend/neuron/spmd_programs.h"

namespace nsim {
namespace neuron {
namespace {

using at::Tensor;
using codegen::Graph;
using codegen::OpKind;
using codegen::ValueId;
constexpr DType kF32 = DType::kF32;

std::string Exact(double v) {
  std::ostringstream os;
  os << std::setprecision(17) << v;
  return os.str();
}

std::vector<int64_t> Trailing(int64_t from, int64_t nd) {
  std::vector<int64_t> dims(nd - from);
  std::iota(dims.begin(), dims.end(), from);
  return dims;
}

Tensor softmax(const Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  const std::string op = "aten::softmax.int";
  const at::TensorMeta m = at::SoftmaxMeta(self, dim, dtype);
  RequireFloat(op, m.dtype);
  RequireDeviceType(op, self.dtype());
  Tensor out = at::MakeOutput(m);
  const std::vector<int64_t> dims = self.dim() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{at::MaybeWrapDim(dim, self.dim())};
  const RowLayout in = RowsOver(self, dims), res = RowsOver(out, dims);
  LaunchGraph(op, {{{"x", in.tensor}}, {{"out", res.tensor}}}, [&] {
    Graph g;
    const ValueId x = g.Input("x", in.desc);
    const ValueId e = g.Unary(OpKind::kExp, g.Binary(OpKind::kSub, x, g.RowReduce(OpKind::kRowAmax, x, kF32), kF32), kF32);
    g.Output(g.Binary(OpKind::kDiv, e, g.RowReduce(OpKind::kRowSum, e, kF32), at::ToSimDType(m.dtype)), "out", res.desc);
    return g;
  });
  return out;
}

// Weight or bias as [n] (they have the normalised shape).
codegen::TensorDesc ParamDesc(const Tensor& p) { return RowsOver(p, Trailing(0, p.dim())).desc; }

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, const at::IntList& shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps) {
  const std::string op = "aten::native_layer_norm";
  const at::NormMetaResult r = at::NormMeta(input, shape, weight, bias);
  RequireFloat(op, input.dtype());
  Tensor out = at::MakeOutput(r.out), mean_t = at::MakeOutput(r.stat), rstd_t = at::MakeOutput(r.stat);
  const RowLayout l = RowsOver(input, Trailing(r.axis, input.dim()));
  const bool has_w = weight && weight->defined(), has_b = bias && bias->defined();
  GraphOperands ops{{{"x", l.tensor}}, {{"y", out}, {"mean", mean_t}, {"rstd", rstd_t}}};
  if (has_w) ops.inputs.push_back({"w", *weight});
  if (has_b) ops.inputs.push_back({"b", *bias});
  LaunchGraph(op, ops, [&] {
    Graph g;
    const ValueId x = g.Input("x", l.desc);
    const ValueId mean = g.RowReduce(OpKind::kRowMean, x, kF32);
    const ValueId d = g.Binary(OpKind::kSub, x, mean, kF32);
    const ValueId var = g.RowReduce(OpKind::kRowMean, g.Unary(OpKind::kSquare, d, kF32), kF32);
    const ValueId rstd = g.Unary(OpKind::kRsqrt, g.Binary(OpKind::kAdd, var, g.Constant(static_cast<float>(eps)), kF32), kF32);
    ValueId y = g.Binary(OpKind::kMul, d, rstd, kF32);
    if (has_w) y = g.Binary(OpKind::kMul, y, g.Input("w", ParamDesc(*weight)), kF32);
    if (has_b) y = g.Binary(OpKind::kAdd, y, g.Input("b", ParamDesc(*bias)), kF32);
    g.Output(g.Cast(y, at::ToSimDType(input.dtype())), "y", FullDesc(l, input.dtype()));
    g.Output(mean, "mean", ReducedDesc(l, at::kFloat));
    g.Output(rstd, "rstd", ReducedDesc(l, at::kFloat));
    return g;
  });
  return std::make_tuple(out, mean_t, rstd_t);
}

// One kernel, or one per physical core of an LNC>1 core, each normalising
// its share of the rows.
std::vector<Kernel> RmsNormPrograms(const RmsNormSpec& spec, const rt::NeuronCoreDevice& core) {
  const std::vector<RmsNormSpec> shares = core.lnc() > 1 ? SplitRmsNorm(spec, core.lnc()) : std::vector<RmsNormSpec>{};
  if (shares.empty()) return {RmsNormKernel(spec, core.config())};
  std::vector<Kernel> programs;
  for (const RmsNormSpec& s : shares) programs.push_back(RmsNormKernel(s, core.config()));
  MakeProgramsAlike(programs, {"x", "w", "y", "rstd"});
  return programs;
}

std::tuple<Tensor, Tensor> fused_rms_norm(const Tensor& input, const at::IntList& shape,
                                          const std::optional<Tensor>& weight, std::optional<double> eps) {
  const std::string op = "aten::_fused_rms_norm";
  const at::NormMetaResult r = at::NormMeta(input, shape, weight, std::nullopt);
  RequireFloat(op, input.dtype());
  Tensor out = at::MakeOutput(r.out), rstd_t = at::MakeOutput(r.stat);
  if (input.numel() == 0) return std::make_tuple(out, rstd_t);
  const RowLayout l = RowsOver(input, Trailing(r.axis, input.dim()));
  RmsNormSpec spec;
  spec.x = l.desc;
  spec.y = FullDesc(l, input.dtype());
  spec.rstd = ReducedDesc(l, at::kFloat);
  spec.has_weight = weight && weight->defined();
  if (spec.has_weight) spec.w = ParamDesc(*weight);
  spec.eps = static_cast<float>(eps ? *eps : at::RmsNormDefaultEps(input.dtype()));
  rt::Bindings bindings{{"x", ElementAddress(l.tensor)}, {"y", ElementAddress(out)}, {"rstd", ElementAddress(rstd_t)}};
  std::string key = op + "|" + Exact(spec.eps) + "|" + spec.x.ToString();
  if (spec.has_weight) {
    bindings["w"] = ElementAddress(*weight);
    key += "|" + spec.w.ToString();
  }
  rt::NeuronCoreDevice& core = CoreOf(input.device());
  LaunchPrograms(core, key, [&] { return RmsNormPrograms(spec, core); }, bindings);
  return std::make_tuple(out, rstd_t);
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, Neuron, m) {
  m.impl("softmax.int", &softmax);
  m.impl("native_layer_norm", &native_layer_norm);
  m.impl("_fused_rms_norm", &fused_rms_norm);
}

}  // namespace neuron
}  // namespace nsim
