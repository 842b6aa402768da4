// The Neuron kernel of _fused_rms_norm: the hand-scheduled kernel of
// kernels/rms_norm_kernel.h (a tuned kernel, not a restated decomposition;
// it rounds as the decomposition does). softmax and layer norm are derived
// from their decompositions (backend/compile/decomposed_kernels.cc).
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

// The weight as [n] (it has the normalised shape).
codegen::TensorDesc ParamDesc(const Tensor& p) { return RowsOver(p, Trailing(0, p.dim())).desc; }

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
  m.impl("_fused_rms_norm", &fused_rms_norm);
}

}  // namespace neuron
}  // namespace nsim
