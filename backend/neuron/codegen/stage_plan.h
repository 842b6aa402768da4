#pragma once
// Cutting a Graph into the stages a kernel runs one after another:
//
// - every matmul starts a matmul stage; pointwise nodes of exactly its
//   output shape that follow it join as its epilogue;
// - pointwise nodes and row reductions join the latest stage their inputs
//   come from when they fit its iteration space (a pointwise stage may grow
//   its space by broadcasting until it holds a reduction, whose reduced dim
//   is then the space's last dim); otherwise they start a new pointwise stage.
//
// A value computed in one stage and read in another (or by a matmul) is a
// crossing value; generate.cc decides whether it stays in SBUF or goes
// through HBM scratch.
#include <vector>

#include "backend/neuron/codegen/graph.h"

namespace nsim {
namespace neuron {
namespace codegen {

enum class StageKind { kPointwise, kMatmul };

struct Stage {
  StageKind kind = StageKind::kPointwise;
  std::vector<ValueId> nodes;   // computed here (views included), in graph order
  std::vector<int64_t> space;   // iteration space; for matmul the product's shape
  bool has_reduction = false;
};

struct StagePlan {
  std::vector<Stage> stages;
  std::vector<int> stage_of;  // per value; -1 for leaves (inputs, constants and views of them)
};

StagePlan PlanStages(const Graph& g);

// Whether value `v` (computed in the plan) is read outside its stage or by a matmul.
bool IsCrossing(const Graph& g, const StagePlan& p, ValueId v);

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
