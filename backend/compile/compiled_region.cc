#include "backend/compile/compiled_region.h"

#include "backend/dispatch_key.h"
#include "profiler/events.h"
#include "runtime/clock.h"

namespace nsim {
namespace compiler {
namespace {

prof::OpInfo RangeInfo(const std::string& name, const std::vector<at::Tensor>& inputs) {
  prof::OpInfo info;
  info.name = name;
  info.kind = prof::OpKind::kCompiledRegion;
  if (prof::RecordingShapes()) {
    std::vector<std::vector<int64_t>> shapes;
    std::vector<std::string> dtypes;
    for (const at::Tensor& t : inputs) {
      shapes.emplace_back(t.sizes().begin(), t.sizes().end());
      dtypes.push_back(at::ToString(t.dtype()));
    }
    info.input_shapes = prof::FormatShapes(shapes);
    info.input_dtypes = prof::FormatDtypes(dtypes);
  }
  return info;
}

// Closes the profiler range however the call ends.
class RangeGuard {
 public:
  explicit RangeGuard(uint64_t id) : id_(id) {}
  ~RangeGuard() { prof::EndOp(id_, rt::SimClock::Get().now()); }

 private:
  uint64_t id_;
};

}  // namespace

CompiledRegion::CompiledRegion(int frame_id, int recompile_id, Graph graph,
                               std::unique_ptr<RegionExecutor> executor, HostCosts costs)
    : frame_id_(frame_id),
      recompile_id_(recompile_id),
      name_("Torch-Compiled Region: " + std::to_string(frame_id) + "/" + std::to_string(recompile_id)),
      graph_(std::move(graph)),
      executor_(std::move(executor)),
      costs_(costs) {}

std::vector<at::Tensor> CompiledRegion::Call(const std::vector<at::Tensor>& inputs,
                                             Picos range_start) const {
  RangeGuard range(prof::Enabled() ? prof::BeginOp(RangeInfo(name_, inputs), range_start) : 0);
  ChargeHost(costs_.graph_lookup + costs_.guard_eval * num_guards());
  // A region may run while a trace is active (a graph break flushes the
  // region before it); its own ops must run, not be traced again.
  at::ExcludeDispatchKeyGuard no_tracing(at::DispatchKey::Tracing);
  return executor_->Run(inputs);
}

}  // namespace compiler
}  // namespace nsim
