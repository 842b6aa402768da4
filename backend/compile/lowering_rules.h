#pragma once
// Lowering rules: for each ATen op the Neuron backend compiles, when it can
// (the check) and how it becomes nodes of the codegen's dataflow graph
// (backend/neuron/codegen/graph.h). An op without a rule, or whose check
// fails, is not compiled: a graph break, or with fullgraph an error naming
// the op and the reason.
//
// Three kinds of rules:
//   compute   elementwise ops, innermost-dim reductions, matmul: codegen nodes
//   view      view/reshape/unsqueeze/.../transpose/expand/slice: on a region
//             input they change how the kernel reads it (a strided HBM
//             access pattern, no copy); on a computed value only adding or
//             removing size-1 dims is allowed (a codegen view)
//   identity  clone, contiguous, a cast to the same dtype: the same value
#include <optional>
#include <string>

#include "backend/compile/graph.h"
#include "backend/neuron/codegen/graph.h"

namespace nsim {
namespace compiler {

namespace cg = ::nsim::neuron::codegen;

// What a compute rule uses to emit its nodes.
class LowerContext {
 public:
  virtual ~LowerContext() = default;
  virtual cg::Graph& graph() = 0;
  virtual const Graph& source() const = 0;  // the ATen graph being lowered
  // Argument `i` of the call as a codegen value: a tensor (graph value or
  // immediate of a wrapped number) or a Scalar argument as a constant.
  virtual cg::ValueId Operand(const Graph::Call& call, size_t i) = 0;
};

struct LoweringRule {
  enum class Kind { kCompute, kView, kIdentity };
  Kind kind;
  // Why this call cannot be compiled (nullopt: it can). May be nullptr.
  std::optional<std::string> (*check)(const Graph& g, const Graph::Call& call);
  // kCompute only: emits the nodes, returns the result.
  cg::ValueId (*lower)(LowerContext& ctx, const Graph::Call& call);
};

// nullptr when the op has no rule.
const LoweringRule* FindLoweringRule(const at::OperatorHandle& op);

// True when `v` is a region input or a view of one (through view and
// identity rules only): its elements are read straight from HBM.
// A layout-changing identity call (clone or contiguous of a strided view)
// ends the chain: its result is a value of its own, laid out by rows.
bool IsInputView(const Graph& g, int v);

// True when an identity call's result has its argument's sizes, strides and
// offset (it can stand for the argument itself).
bool KeepsLayout(const Graph& g, const Graph::Call& c);

}  // namespace compiler
}  // namespace nsim
