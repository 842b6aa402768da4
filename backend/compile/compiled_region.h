#pragma once
// CompiledRegion: one captured graph compiled by a backend, run as a unit.
// It carries PyTorch's name for it, "Torch-Compiled Region: N/M" (N: the
// frame, i.e. which region of which compiled function; M: how many times
// that frame was recompiled before this version), which is what a profile
// shows for each call.
#include <memory>
#include <string>
#include <vector>

#include "backend/compile/compiler_backend.h"
#include "backend/compile/graph.h"
#include "backend/compile/host_costs.h"

namespace nsim {
namespace compiler {

class CompiledRegion {
 public:
  CompiledRegion(int frame_id, int recompile_id, Graph graph, std::unique_ptr<RegionExecutor> executor,
                 HostCosts costs);

  const std::string& name() const { return name_; }
  int frame_id() const { return frame_id_; }
  int recompile_id() const { return recompile_id_; }
  const Graph& graph() const { return graph_; }
  // Guards the region's cache entry checks: one per input.
  int num_guards() const { return static_cast<int>(graph_.placeholders().size()); }
  const RegionExecutor& executor() const { return *executor_; }

  // Runs the region on real tensors (one per placeholder). The call is one
  // profiler range of kind kCompiledRegion that opens at `range_start` (the
  // caller's start, so that the guard checks before it count as the
  // region's host time, as in PyTorch's profiles) and holds the region's
  // host costs and whatever the executor does (for the Neuron backend, one
  // kernel execution, which the profiler attributes to this range).
  std::vector<at::Tensor> Call(const std::vector<at::Tensor>& inputs, Picos range_start) const;

 private:
  int frame_id_, recompile_id_;
  std::string name_;
  Graph graph_;
  std::unique_ptr<RegionExecutor> executor_;
  HostCosts costs_;
};

}  // namespace compiler
}  // namespace nsim
