#pragma once
// Which nodes of a pointwise stage disappear into a ScalarE activation,
// decided once per stage before its tiles are emitted:
//
// - a multiply or add by a scalar (an immediate or a per-row column) whose
//   only user is an activation becomes that activation's scale / bias
//   (func(x * scale + bias)), also a multiply feeding such an add: x*s+b;
// - a row sum (or mean) of an activation's result is that activation's
//   accumulator (activation ... acc=), instead of a separate tensor_reduce.
//
// Both only when no rounding is lost: the folded value must be an fp32 tile
// that is neither an output nor needed by another stage.
#include <map>
#include <set>

#include "backend/neuron/codegen/lowering.h"

namespace nsim {
namespace neuron {
namespace codegen {

struct FusionPlan {
  std::set<ValueId> folded;             // computed by their user's activation (scale / bias)
  std::map<ValueId, ValueId> acc_into;  // activation -> the row sum / mean its accumulator computes
};

FusionPlan PlanFusions(const Lowering& L, int stage);

// Which operand (0 or 1) of binary node `p` is the scalar one — an
// immediate or a column of the stage — while the other is not an
// immediate; -1 if neither qualifies (sub only takes its second operand).
int ScalarSide(const Lowering& L, const Stage& stage, const Node& p);

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
