#pragma once
// The per-op lowering of the Neuron backend, written once: for each ATen
// compute op, the codegen nodes (codegen/graph.h) it becomes. Every path to
// the device uses it:
//
//   eager       ops/*.cc: one op -> one graph -> one generated kernel
//   compile()   backend/compile/lowering_rules.cc: a captured graph, each
//               call through this table -> one fused kernel
//   PyTorch     torch_nsim: eager ops run the eager kernels above, and
//               torch.compile hands its graphs to compile()'s backend
//
// An op's emitter reads its arguments through OpOperands, so each path says
// only how it provides them (tensors as graph inputs or fused values,
// numbers as immediates).
#include <string>
#include <vector>

#include "backend/ivalue.h"
#include "backend/neuron/codegen/graph.h"

namespace nsim {
namespace neuron {

class OpOperands {
 public:
  virtual ~OpOperands() = default;
  // Schema argument `i` as a codegen value: a tensor, or a number as an immediate.
  virtual codegen::ValueId Operand(size_t i) = 0;
  // Schema argument `i` when it is not a tensor (None when absent).
  virtual at::IValue Constant(size_t i) const = 0;
  virtual DType out_dtype() const = 0;                     // where the result is rounded
  virtual const std::vector<int64_t>& out_sizes() const = 0;  // the result's sizes
};

using OpEmitter = codegen::ValueId (*)(codegen::Graph& g, OpOperands& op);

// The emitter of op `full_name` ("aten::add.Tensor"), nullptr if it has none.
OpEmitter FindOpLowering(const std::string& full_name);

// Emits `full_name`'s nodes; throws SimError naming the op when it has no lowering.
codegen::ValueId EmitOp(codegen::Graph& g, const std::string& full_name, OpOperands& op);

// `v` converted to `out` with ATen's values, the one cast of every path
// (to.dtype, _to_copy, copy_): float -> int32 truncates toward zero (trunc =
// x - frac(x), exact in fp32, before the store, which rounds), float -> int16
// / int8 / uint8 truncates and wraps around as PyTorch's CPU does, int16 /
// uint8 / int8 -> a narrower (or other-signed) one wraps, -> bool is x != 0
// (NaN is true), the rest as the store converts (round to nearest even).
// int32 -> a narrower integer throws (not exact in fp32: eager copies move
// the low bytes); int64 has no element type (copy_ops.cc converts it).
codegen::ValueId ExactCast(codegen::Graph& g, codegen::ValueId v, DType out);

// OpOperands of an eager op: its tensor arguments already graph values
// (-1 for the others), its other arguments as given.
class EagerOperands : public OpOperands {
 public:
  EagerOperands(codegen::Graph* g, std::vector<codegen::ValueId> values, std::vector<at::IValue> constants,
                DType out, std::vector<int64_t> out_sizes);
  codegen::ValueId Operand(size_t i) override;
  at::IValue Constant(size_t i) const override;
  DType out_dtype() const override { return out_; }
  const std::vector<int64_t>& out_sizes() const override { return out_sizes_; }

 private:
  codegen::Graph* g_;
  std::vector<codegen::ValueId> values_;
  std::vector<at::IValue> constants_;
  DType out_;
  std::vector<int64_t> out_sizes_;
};

}  // namespace neuron
}  // namespace nsim
