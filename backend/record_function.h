#pragma once
// Hooks around every dispatched op, for the profiler and the runtime's host
// time model (c10's RecordFunction, reduced to what we need).
//
//   class MyObserver : public OpObserver {
//     void OnOpBegin(const OpCall& c) override { ... c.schema->full_name() ... }
//     void OnOpEnd(const OpCall& c) override { ... c.end - c.start ... }
//   };
//   MyObserver obs;
//   AddOpObserver(&obs);   // every op from now on, on every thread
//   RemoveOpObserver(&obs);
//
// Timestamps come from the simulated clock the host and device share
// (runtime/clock.h). A HostCostModel, when set, advances that clock at the
// begin of every op dispatched to a key whose traits say charges_host_cost
// (the Neuron key): that is the framework's per-op dispatch cost.
//
// Cost when nothing is registered: one load and one branch per op (HooksActive()).
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/dispatch_key.h"
#include "backend/function_schema.h"
#include "backend/ivalue.h"
#include "sim/base/time.h"

namespace nsim {
namespace at {

// One dispatched op, as observers see it.
struct OpCall {
  const FunctionSchema* schema;  // name: schema->qualified_name(), overload: overload_name()
  DispatchKey key;               // the key whose kernel ran
  uint64_t correlation_id;       // unique per op call, increasing from 1, process-wide
  uint64_t parent_id;            // correlation id of the op this one runs inside (same thread), 0 if none
  int depth;                     // 0 for an op called by user code, parent's depth + 1 otherwise
  Picos start;                   // SimClock at begin, before the host cost is charged
  Picos end;                     // SimClock at end; valid in OnOpEnd only
  const Stack* inputs;           // the boxed arguments as passed (CPU scalars not yet lifted)
  const Stack* outputs;          // the results; in OnOpEnd only, nullptr if the op threw
};

// Shapes and dtype names of the Tensor inputs, in argument order, for
// "Input Dims"/"Input type"; non-tensor arguments give [] and "Scalar",
// "ScalarList" or "" (None, dtype, device) as PyTorch's profiler does.
std::vector<IntList> InputShapes(const OpCall& call);
std::vector<std::string> InputDtypes(const OpCall& call);

class OpObserver {
 public:
  virtual ~OpObserver() = default;
  // Contract: must not dispatch ops (they would be observed recursively).
  virtual void OnOpBegin(const OpCall& call) { (void)call; }
  virtual void OnOpEnd(const OpCall& call) { (void)call; }
};

// Not owned; must stay alive until removed. Adding twice is an error.
void AddOpObserver(OpObserver* observer);
void RemoveOpObserver(OpObserver* observer);

class HostCostModel {
 public:
  virtual ~HostCostModel() = default;
  // Simulated host time this op's dispatch costs (framework overhead), charged
  // before its kernel runs. Called with end/outputs not yet set.
  virtual Picos DispatchCost(const OpCall& call) = 0;
};

// Sets the model (not owned; nullptr: no cost, the default); returns the previous one.
HostCostModel* SetHostCostModel(HostCostModel* model);
HostCostModel* GetHostCostModel();

namespace detail {
extern std::atomic<bool> g_hooks_active;
}  // namespace detail

// True when an observer or a host cost model is registered.
inline bool HooksActive() { return detail::g_hooks_active.load(std::memory_order_relaxed); }

// While one is alive on this thread, ops dispatched on it are not observed
// (no observer callbacks, no host cost): work a kernel does on metadata to
// build itself (tracing its decomposition, compiler/decomposed_kernels.cc)
// is not a framework op of the user's program.
class UnobservedScope {
 public:
  UnobservedScope();
  ~UnobservedScope();
  UnobservedScope(const UnobservedScope&) = delete;
  UnobservedScope& operator=(const UnobservedScope&) = delete;

 private:
  bool previous_;
};
bool Unobserved();

// Scope of one observed op: begin callbacks and host cost on construction,
// end callbacks on End() (or, with outputs == nullptr, when unwinding).
class RecordOpScope {
 public:
  RecordOpScope(const FunctionSchema& schema, DispatchKey key, const Stack& inputs);
  ~RecordOpScope();
  void End(const Stack& outputs);
  RecordOpScope(const RecordOpScope&) = delete;
  RecordOpScope& operator=(const RecordOpScope&) = delete;

 private:
  void Finish(const Stack* outputs);
  Stack inputs_;  // a copy: the kernel consumes the stack
  OpCall call_;
  OpCall* parent_;
  bool ended_ = false;
};

}  // namespace at
}  // namespace nsim
