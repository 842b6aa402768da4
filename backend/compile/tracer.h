#pragma once
// Tracer: one run of a compiled function on fake tensors, recording the ATen
// ops it dispatches into graphs (what TorchDynamo + AOTAutograd do for a
// Python function). While a TraceScope is active the thread includes the
// Tracing dispatch key, whose fallback (tracing_fallback.cc) hands every op
// to OnOp:
//
//   - an op on fakes is shape-inferred by the Meta kernels and recorded as a
//     call node; its results are new fakes (composite ops are decomposed
//     first, decompositions.h);
//   - an op the backend cannot compile, a copy of traced data to the host
//     (.item(), .cpu()) or an in-place write is a graph break: with
//     fullgraph an error naming the op; otherwise the graph so far is
//     compiled and run (its live values become its outputs), the op runs
//     eagerly on the real tensors, and a new graph starts;
//   - an op without fakes is host code and simply runs.
//
// Real tensors the function captures (weights in a closure) enter the graph
// as extra placeholders; Python numbers (`x + 1e-6`, wrapped 0-dim CPU
// tensors) stay in it as immediates.
//
// The trace leaves a Program that replays the same regions and break ops
// without the function, valid unless the function read traced data on the
// host (its control flow may depend on it): see replayable().
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/compile/compiler_backend.h"
#include "backend/compile/graph.h"
#include "backend/compile/program.h"
#include "backend/compile/region_cache.h"
#include "backend/dispatch_key.h"

namespace nsim {
namespace compiler {

class Tracer {
 public:
  Tracer(const CompilerBackend& backend, RegionCache* regions, bool fullgraph);
  // A tracer that only records (RecordDecomposition): no backend checks, no
  // regions compiled or run; a graph break is an error.
  Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // The tracer of the active TraceScope on this thread, or nullptr.
  static Tracer* Active();

  // Registers a real tensor argument; returns the fake the function gets.
  at::Tensor AddInput(const at::Tensor& real);
  // Called by the Tracing fallback with the op's arguments on `stack`.
  void OnOp(const at::OperatorHandle& op, at::Stack* stack);
  // Ends the trace: compiles and runs the last graph; returns the real
  // tensors for the function's results (fakes or captured tensors).
  std::vector<at::Tensor> Finish(const std::vector<at::Tensor>& results);

  // Record-only use: a fake that is the graph's next placeholder, and the
  // graph with `results` (fakes of this trace) as its outputs.
  at::Tensor AddPlaceholder(const ValueMeta& meta);
  Graph TakeGraph(const std::vector<at::Tensor>& results);

  bool replayable() const { return replayable_; }
  Program TakeProgram() { return std::move(program_); }

 private:
  // A value of the trace, across graphs: an input, a captured tensor, or
  // a result of a recorded or eager op.
  struct Slot {
    std::string name;
    ValueMeta meta;
    std::weak_ptr<at::TensorImpl> fake;  // what user code holds; expired = dead
    at::Tensor real;                     // set once computed (or for inputs/constants)
  };
  struct BreakReason {
    std::string why;
    bool host_read;
  };

  int NewSlot(std::string name, const ValueMeta& meta, const std::shared_ptr<at::TensorImpl>& fake);
  int FakeSlot(const at::Tensor& t) const;  // -1 if `t` is not a live fake of this trace
  int ConstantSlot(const at::Tensor& real);
  bool HasFake(const at::Stack& stack, size_t first) const;
  // The argument for a stack entry; tensors become slots (not yet graph values).
  Arg SlotArg(const at::IValue& v);
  // The graph value of a slot, adding a placeholder on first use in this graph.
  int ValueOf(int slot);

  std::optional<BreakReason> DataMovement(const at::OperatorHandle& op, const at::Stack& stack,
                                          size_t first) const;
  void Record(const at::OperatorHandle& op, at::Stack* stack, size_t first);
  void Break(const at::OperatorHandle& op, at::Stack* stack, size_t first, const BreakReason& reason);
  // Compiles and runs the current graph with the live values (and `needed`)
  // as outputs, then starts a new graph.
  void Flush(const std::vector<int>& needed);
  void StartGraph();

  const CompilerBackend* backend_;  // nullptr: record only
  RegionCache* regions_;
  bool fullgraph_;
  bool replayable_ = true;
  std::vector<Slot> slots_;
  std::unordered_map<const at::TensorImpl*, int> fake_slots_;
  std::unordered_map<const at::TensorImpl*, int> constant_slots_;
  Program program_;
  int position_ = 0;  // regions flushed so far

  // The graph being recorded.
  Graph graph_;
  std::unordered_map<int, int> slot_value_;  // slot -> value in graph_
  std::vector<int> placeholder_slots_;       // slot of each placeholder
  std::vector<int> defined_slots_;           // slots computed by graph_'s calls
};

// Makes `tracer` the thread's active tracer and includes the Tracing key.
class TraceScope {
 public:
  explicit TraceScope(Tracer* tracer);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  Tracer* previous_;
  at::IncludeDispatchKeyGuard include_;
};

}  // namespace compiler
}  // namespace nsim
