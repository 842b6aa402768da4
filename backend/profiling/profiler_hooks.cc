// Forwards every dispatched ATen op to the profiler (profiler/events.h) while
// a profile records: the op's name, overload, input shapes and dtypes, and its
// begin/end on the simulated clock. Linking this library (alwayslink) is what
// makes ops appear in key_averages() and in the framework/TID lane.
#include <vector>

#include "backend/record_function.h"
#include "profiler/events.h"

namespace nsim {
namespace at {
namespace {

std::vector<std::vector<int64_t>> ShapesOf(const OpCall& call) {
  std::vector<std::vector<int64_t>> shapes;
  for (const IntList& s : InputShapes(call)) shapes.emplace_back(s.begin(), s.end());
  return shapes;
}

class ProfilerForwarder : public OpObserver {
 public:
  void OnOpBegin(const OpCall& call) override {
    if (!prof::Enabled()) {
      open_.push_back(0);
      return;
    }
    prof::OpInfo info;
    info.name = call.schema->qualified_name();
    info.overload = call.schema->overload_name();
    if (prof::RecordingShapes()) {
      info.input_shapes = prof::FormatShapes(ShapesOf(call));
      info.input_dtypes = prof::FormatDtypes(InputDtypes(call));
    }
    open_.push_back(prof::BeginOp(std::move(info), call.start));
  }
  void OnOpEnd(const OpCall& call) override {
    if (open_.empty()) return;  // began before this observer existed
    prof::EndOp(open_.back(), call.end);
    open_.pop_back();
  }

 private:
  // Profiler ids of the ops open on this thread; ops nest, so a stack.
  static thread_local std::vector<uint64_t> open_;
};

thread_local std::vector<uint64_t> ProfilerForwarder::open_;

ProfilerForwarder g_forwarder;
const bool g_registered = (AddOpObserver(&g_forwarder), true);

}  // namespace
}  // namespace at
}  // namespace nsim
