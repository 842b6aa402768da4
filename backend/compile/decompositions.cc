#include "backend/compile/decompositions.h"

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
using namespace at::decomp;  // the composite ops, written once (composite/training_ops.h, composite/row_ops.cc)

Tensor LayerNorm(const Tensor& input, const IntList& normalized_shape, const std::optional<Tensor>& weight,
                 const std::optional<Tensor>& bias, double eps, bool /*cudnn_enable*/) {
  return std::get<0>(NativeLayerNorm(input, normalized_shape, weight, bias, eps));
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
      {"aten::masked_fill.Scalar", {nullptr, at::KernelFunction::FromUnboxed(&MaskedFillScalar)}},
      {"aten::masked_fill.Tensor", {nullptr, at::KernelFunction::FromUnboxed(&MaskedFillTensor)}},
      {"aten::threshold", {nullptr, at::KernelFunction::FromUnboxed(&Threshold)}},
      {"aten::threshold_backward", {nullptr, at::KernelFunction::FromUnboxed(&ThresholdBackward)}},
      {"aten::logaddexp", {nullptr, at::KernelFunction::FromUnboxed(&Logaddexp)}},
      {"aten::xlogy.Tensor", {nullptr, at::KernelFunction::FromUnboxed(&Xlogy)}},
      {"aten::special_xlog1py", {nullptr, at::KernelFunction::FromUnboxed(&Xlog1py)}},
      {"aten::softplus", {nullptr, at::KernelFunction::FromUnboxed(&Softplus)}},
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
