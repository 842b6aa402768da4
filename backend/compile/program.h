#pragma once
// Program: what one trace of a compiled function leaves behind, so that the
// next calls with the same guards replay it without running the function:
// the compiled regions and the graph-break ops between them, in order, over
// numbered slots (the function's inputs, the regions' outputs, the break
// ops' results and the constants the function captured).
#include <memory>
#include <utility>
#include <variant>
#include <vector>

#include "backend/compile/compiled_region.h"
#include "backend/compile/graph.h"

namespace nsim {
namespace compiler {

struct RegionStep {
  std::shared_ptr<const CompiledRegion> region;
  std::vector<int> inputs;   // slot per placeholder
  std::vector<int> outputs;  // slot per graph output
};

// An op run eagerly at a graph break.
struct EagerStep {
  at::OperatorHandle op;
  std::vector<Arg> args;     // kValue args name slots
  std::vector<int> outputs;  // slot per result
};

using Step = std::variant<RegionStep, EagerStep>;

struct Program {
  int num_slots = 0;
  std::vector<int> input_slots;                       // slot of each tensor argument
  std::vector<std::pair<int, at::Tensor>> constants;  // captured real tensors
  std::vector<Step> steps;
  std::vector<int> output_slots;                      // the function's flattened results

  // Runs the steps on `inputs` (one per input slot). The first region's
  // profiler range opens at `call_start`.
  std::vector<at::Tensor> Run(const std::vector<at::Tensor>& inputs, Picos call_start) const;
};

// Runs one graph-break op on real tensors held in `slots`, storing its results.
void RunEagerStep(const EagerStep& step, std::vector<at::Tensor>* slots);

}  // namespace compiler
}  // namespace nsim
