#include "backend/compile/decompositions.h"

#include <algorithm>
#include <map>
#include <string>

#include "backend/compile/tracer.h"
#include "backend/meta/shape_functions.h"
#include "backend/composite/training_ops.h"
#include "backend/ops.h"

namespace nsim {
namespace compiler {
namespace {

using at::IntList;
using at::ScalarType;
using at::Tensor;
using namespace at::decomp;  // Upcast, CastTo, LastDims and the training ops (composite/training_ops.h)

Tensor Softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const Tensor x = dtype ? CastTo(self, *dtype) : self;
  const Tensor x32 = Upcast(x);
  const Tensor e = at::exp(x32 - x32.amax({dim}, true));
  return CastTo(e / e.sum({dim}, true), x.dtype());
}

// (normalised x in fp32, mean, rstd) over the trailing dims.
std::tuple<Tensor, Tensor, Tensor> Normalize(const Tensor& input, const IntList& normalized_shape,
                                             double eps) {
  const IntList dims = LastDims(input.dim(), normalized_shape.size());
  const Tensor x = Upcast(input);
  const Tensor mean = x.mean(dims, true);
  const Tensor centered = x - mean;
  // square, not centered * centered: the same value, and one activation
  // that also sums the row (what a device kernel does for a variance).
  const Tensor rstd = at::rsqrt(at::square(centered).mean(dims, true) + eps);
  return {centered * rstd, mean, rstd};
}

Tensor Affine(Tensor y, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
              ScalarType out_dtype) {
  if (weight) y = y * *weight;
  if (bias) y = y + *bias;
  return CastTo(y, out_dtype);
}

std::tuple<Tensor, Tensor, Tensor> NativeLayerNorm(const Tensor& input, const IntList& normalized_shape,
                                                   const std::optional<Tensor>& weight,
                                                   const std::optional<Tensor>& bias, double eps) {
  auto [y, mean, rstd] = Normalize(input, normalized_shape, eps);
  return {Affine(y, weight, bias, input.dtype()), mean, rstd};
}

Tensor LayerNorm(const Tensor& input, const IntList& normalized_shape, const std::optional<Tensor>& weight,
                 const std::optional<Tensor>& bias, double eps, bool /*cudnn_enable*/) {
  return std::get<0>(NativeLayerNorm(input, normalized_shape, weight, bias, eps));
}

std::tuple<Tensor, Tensor> FusedRmsNorm(const Tensor& input, const IntList& normalized_shape,
                                        const std::optional<Tensor>& weight, std::optional<double> eps) {
  const Tensor x = Upcast(input);
  const IntList dims = LastDims(input.dim(), normalized_shape.size());
  const Tensor rstd = at::rsqrt((x * x).mean(dims, true) + eps.value_or(at::RmsNormDefaultEps(input.dtype())));
  return {Affine(x * rstd, weight, std::nullopt, input.dtype()), rstd};
}

Tensor Var(const Tensor& self, const std::optional<IntList>& dim, const std::optional<at::Scalar>& correction,
           bool keepdim) {
  const IntList dims = dim.value_or(IntList{});
  const std::vector<bool> reduced = at::DimMask(dims, self.dim());
  int64_t n = 1;
  for (int64_t d = 0; d < self.dim(); ++d) n *= (dims.empty() || reduced[d]) ? self.size(d) : 1;
  const Tensor x = Upcast(self);
  const Tensor centered = x - x.mean(dims, true);
  // PyTorch's divisor: never below 0 (correction > n gives inf or NaN, not a negative variance).
  const double divisor = std::max(0.0, static_cast<double>(n) - (correction ? correction->toDouble() : 1.0));
  return CastTo(at::square(centered).sum(dims, keepdim) / divisor, self.dtype());
}

struct Decomposition {
  bool (*applies)(const at::Stack&);  // nullptr: always
  at::KernelFunction fn;
};

const std::map<std::string, Decomposition>& Table() {
  static const auto* table = new std::map<std::string, Decomposition>{
      {"aten::softmax.int", {nullptr, at::KernelFunction::FromUnboxed(&Softmax)}},
      {"aten::layer_norm", {nullptr, at::KernelFunction::FromUnboxed(&LayerNorm)}},
      {"aten::native_layer_norm", {nullptr, at::KernelFunction::FromUnboxed(&NativeLayerNorm)}},
      {"aten::_fused_rms_norm", {nullptr, at::KernelFunction::FromUnboxed(&FusedRmsNorm)}},
      {"aten::var.correction", {nullptr, at::KernelFunction::FromUnboxed(&Var)}},
      {"aten::lerp.Scalar", {nullptr, at::KernelFunction::FromUnboxed(&LerpScalar)}},
      {"aten::lerp.Tensor", {nullptr, at::KernelFunction::FromUnboxed(&LerpTensor)}},
      {"aten::addcmul", {nullptr, at::KernelFunction::FromUnboxed(&Addcmul)}},
      {"aten::addcdiv", {nullptr, at::KernelFunction::FromUnboxed(&Addcdiv)}},
      {"aten::tanh_backward", {nullptr, at::KernelFunction::FromUnboxed(&TanhBackward)}},
      {"aten::sigmoid_backward", {nullptr, at::KernelFunction::FromUnboxed(&SigmoidBackward)}},
      {"aten::gelu_backward", {nullptr, at::KernelFunction::FromUnboxed(&GeluBackward)}},
      {"aten::_softmax_backward_data", {nullptr, at::KernelFunction::FromUnboxed(&SoftmaxBackward)}},
      {"aten::_log_softmax", {nullptr, at::KernelFunction::FromUnboxed(&LogSoftmax)}},
      {"aten::_log_softmax_backward_data",
       {nullptr, at::KernelFunction::FromUnboxed(&LogSoftmaxBackward)}},
      {"aten::native_layer_norm_backward",
       {nullptr, at::KernelFunction::FromUnboxed(&NativeLayerNormBackward)}},
  };
  return *table;
}

}  // namespace

const at::KernelFunction* FindDecomposition(const at::OperatorHandle& op, const at::Stack& stack) {
  const auto& table = Table();
  auto it = table.find(op.schema().full_name());
  if (it == table.end()) return nullptr;
  if (it->second.applies != nullptr && !it->second.applies(stack)) return nullptr;
  return &it->second.fn;
}

std::optional<Graph> RecordDecomposition(const at::OperatorHandle& op, const std::vector<Arg>& args,
                                         const std::vector<ValueMeta>& inputs) {
  Tracer tracer;
  std::vector<at::Tensor> fakes;
  for (const ValueMeta& m : inputs) fakes.push_back(tracer.AddPlaceholder(m));
  at::Stack stack;
  for (const Arg& a : args) stack.push_back(a.is_value() ? at::IValue(fakes.at(a.value)) : a.constant);
  if (FindDecomposition(op, stack) == nullptr) return std::nullopt;
  {
    TraceScope scope(&tracer);
    op.callBoxed(&stack);
  }
  std::vector<at::Tensor> results;
  for (const at::IValue& r : stack) {
    // An undefined result (the gradient of an absent weight) has no graph
    // output: the op is then not replayed as a graph, and runs as itself.
    if (r.isNone()) return std::nullopt;
    results.push_back(r.toTensor());
  }
  return tracer.TakeGraph(results);
}

std::vector<std::string> DecomposedOps() {
  std::vector<std::string> names;
  for (const auto& [name, d] : Table()) names.push_back(name);
  return names;
}

}  // namespace compiler
}  // namespace nsim
