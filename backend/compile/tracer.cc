#include "backend/compile/tracer.h"

#include <algorithm>

#include "backend/compile/dead_code.h"
#include "backend/compile/decompositions.h"
#include "backend/compile/fake_tensor.h"
#include "backend/compile/interpreter.h"
#include "runtime/clock.h"
#include "sim/base/error.h"

namespace nsim {
namespace compiler {
namespace {

thread_local Tracer* t_active = nullptr;

// `want` names `have`'s device ("neuron" without an index means the current one).
bool SameDevice(const at::Device& want, const at::Device& have) {
  return want.type() == have.type() && (want.index() < 0 || want.index() == have.index());
}

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

constexpr const char* kHostRead =
    "copies traced data to the host (a data-dependent host read such as .item() or .cpu())";

}  // namespace

Tracer::Tracer(const CompilerBackend& backend, RegionCache* regions, bool fullgraph)
    : backend_(&backend), regions_(regions), fullgraph_(fullgraph) {}

Tracer::Tracer() : backend_(nullptr), regions_(nullptr), fullgraph_(true) {}

Tracer* Tracer::Active() { return t_active; }

TraceScope::TraceScope(Tracer* tracer) : previous_(t_active), include_(at::DispatchKey::Tracing) {
  t_active = tracer;
}
TraceScope::~TraceScope() { t_active = previous_; }

// --- slots -------------------------------------------------------------------

int Tracer::NewSlot(std::string name, const ValueMeta& meta, const std::shared_ptr<at::TensorImpl>& fake) {
  const int slot = static_cast<int>(slots_.size());
  slots_.push_back(Slot{std::move(name), meta, fake, at::Tensor()});
  if (fake) fake_slots_[fake.get()] = slot;
  return slot;
}

int Tracer::FakeSlot(const at::Tensor& t) const {
  auto it = fake_slots_.find(t.unsafeGetTensorImpl());
  if (it == fake_slots_.end()) return -1;
  // The address may belong to a new tensor once the fake it named died.
  return slots_[it->second].fake.lock().get() == t.unsafeGetTensorImpl() ? it->second : -1;
}

int Tracer::ConstantSlot(const at::Tensor& real) {
  auto it = constant_slots_.find(real.unsafeGetTensorImpl());
  if (it != constant_slots_.end()) return it->second;
  const int slot =
      NewSlot("_tensor_constant" + std::to_string(constant_slots_.size()), ValueMeta::Of(real), nullptr);
  slots_[slot].real = real;
  program_.constants.emplace_back(slot, real);  // keeps the address stable
  constant_slots_[real.unsafeGetTensorImpl()] = slot;
  return slot;
}

at::Tensor Tracer::AddInput(const at::Tensor& real) {
  const ValueMeta meta = ValueMeta::Of(real);
  std::shared_ptr<at::TensorImpl> fake = MakeFake(meta);
  const int slot = NewSlot("arg" + std::to_string(program_.input_slots.size()), meta, fake);
  slots_[slot].real = real;
  program_.input_slots.push_back(slot);
  return at::Tensor(fake);
}

at::Tensor Tracer::AddPlaceholder(const ValueMeta& meta) {
  std::shared_ptr<at::TensorImpl> fake = MakeFake(meta);
  const int slot = NewSlot("arg" + std::to_string(placeholder_slots_.size()), meta, fake);
  slot_value_[slot] = graph_.AddPlaceholder(slots_[slot].name, meta);
  placeholder_slots_.push_back(slot);
  return at::Tensor(fake);
}

Graph Tracer::TakeGraph(const std::vector<at::Tensor>& results) {
  std::vector<int> outputs;
  for (const at::Tensor& t : results) outputs.push_back(slot_value_.at(FakeSlot(t)));
  graph_.SetOutputs(outputs);
  Graph g = std::move(graph_);
  StartGraph();
  return g;
}

bool Tracer::HasFake(const at::Stack& stack, size_t first) const {
  for (size_t i = first; i < stack.size(); ++i) {
    if (stack[i].isTensor() && FakeSlot(stack[i].toTensor()) >= 0) return true;
  }
  return false;
}

Arg Tracer::SlotArg(const at::IValue& v) {
  if (!v.isTensor()) return Arg::Constant(v);
  const at::Tensor& t = v.toTensor();
  const int slot = FakeSlot(t);
  if (slot >= 0) return Arg::Value(slot);
  if (t.is_cpu() && t.dim() == 0) return Arg::ScalarTensor(t);
  return Arg::Value(ConstantSlot(t));
}

int Tracer::ValueOf(int slot) {
  auto it = slot_value_.find(slot);
  if (it != slot_value_.end()) return it->second;
  if (!slots_[slot].real.defined()) {
    throw SimError("compile(): internal error: " + slots_[slot].name + " was dropped at a graph break but is used after it");
  }
  const int v = graph_.AddPlaceholder(slots_[slot].name, slots_[slot].meta);
  slot_value_[slot] = v;
  placeholder_slots_.push_back(slot);
  return v;
}

// --- ops -----------------------------------------------------------------------

void Tracer::OnOp(const at::OperatorHandle& op, at::Stack* stack) {
  const size_t first = stack->size() - op.schema().arguments().size();
  if (!HasFake(*stack, first)) {  // host code: nothing traced flows into it
    at::ExcludeDispatchKeyGuard no_tracing(at::DispatchKey::Tracing);
    op.callBoxed(stack);
    return;
  }
  if (const at::KernelFunction* decomposition = FindDecomposition(op, *stack)) {
    decomposition->callBoxed(op, stack);  // its ops come back here one by one
    return;
  }
  if (std::optional<BreakReason> reason = DataMovement(op, *stack, first)) {
    Break(op, stack, first, *reason);
    return;
  }
  Record(op, stack, first);
}

std::optional<Tracer::BreakReason> Tracer::DataMovement(const at::OperatorHandle& op,
                                                         const at::Stack& stack, size_t first) const {
  const std::vector<at::Argument>& schema = op.schema().arguments();
  at::Device traced_device;
  for (size_t i = first; i < stack.size(); ++i) {
    if (stack[i].isTensor() && FakeSlot(stack[i].toTensor()) >= 0) traced_device = stack[i].toTensor().device();
  }
  for (size_t i = 0; i < schema.size(); ++i) {
    const at::IValue& v = stack[first + i];
    if (!schema[i].is_write || !v.isTensor()) continue;
    const at::Tensor& t = v.toTensor();
    if (FakeSlot(t) >= 0) return BreakReason{"writes into a traced tensor in place", false};
    if (t.is_cpu()) return BreakReason{kHostRead, true};
    return BreakReason{"writes traced data into a tensor captured from outside the function", false};
  }
  for (size_t i = first; i < stack.size(); ++i) {
    if (!stack[i].isDevice() || SameDevice(stack[i].toDevice(), traced_device)) continue;
    if (stack[i].toDevice().is_cpu()) return BreakReason{kHostRead, true};
    return BreakReason{"moves traced data to " + stack[i].toDevice().str(), false};
  }
  return std::nullopt;
}

void Tracer::Record(const at::OperatorHandle& op, at::Stack* stack, size_t first) {
  std::vector<Arg> args;
  at::Stack meta;  // the same arguments with meta stand-ins for every non-scalar tensor
  std::vector<std::pair<at::Tensor, at::Tensor>> stand_ins;  // (stand-in, what it stands for)
  std::optional<at::Device> device;
  for (size_t i = first; i < stack->size(); ++i) {
    const at::IValue& v = (*stack)[i];
    Arg a = SlotArg(v);
    if (a.is_value()) {
      const at::Tensor& t = v.toTensor();
      if (!device) device = t.device();
      stand_ins.emplace_back(MetaStandIn(t), t);
      meta.emplace_back(stand_ins.back().first);
      a.value = ValueOf(a.value);
    } else {
      meta.push_back(v);
    }
    args.push_back(std::move(a));
  }
  // A Device argument naming the op's own device (`.to(x.device(), kFloat)`)
  // must name the meta device, or shape inference would allocate on it.
  for (at::IValue& m : meta) {
    if (m.isDevice() && SameDevice(m.toDevice(), *device)) m = at::IValue(at::Device(at::kMeta));
  }
  {
    at::ExcludeDispatchKeyGuard no_tracing(at::DispatchKey::Tracing);
    op.redispatchBoxed(at::DispatchKey::Tracing, &meta);
  }
  std::vector<ValueMeta> metas;
  for (const at::IValue& r : meta) {
    ValueMeta m = ValueMeta::Of(r.toTensor());
    m.device = *device;
    metas.push_back(std::move(m));
  }
  const std::vector<int> values = graph_.AddCall(op, std::move(args), metas, op.schema().name());
  if (std::optional<std::string> why =
          backend_ ? backend_->Unsupported(graph_, graph_.calls().back()) : std::nullopt) {
    graph_.PopCall();
    Break(op, stack, first, BreakReason{*why, false});
    return;
  }
  stack->resize(first);
  for (size_t i = 0; i < values.size(); ++i) {
    std::shared_ptr<at::TensorImpl> fake;
    for (const auto& [stand_in, original] : stand_ins) {
      if (meta[i].toTensor().storage().is_alias_of(stand_in.storage())) {
        fake = MakeFakeView(original, metas[i]);  // a view keeps aliasing its base
        break;
      }
    }
    if (!fake) fake = MakeFake(metas[i]);
    const int slot = NewSlot(graph_.value(values[i]).name, metas[i], fake);
    slot_value_[slot] = values[i];
    defined_slots_.push_back(slot);
    stack->emplace_back(at::Tensor(fake));
  }
}

// --- graph breaks ----------------------------------------------------------------

void Tracer::Break(const at::OperatorHandle& op, at::Stack* stack, size_t first, const BreakReason& reason) {
  if (fullgraph_) {
    throw SimError("compile(fullgraph=True): cannot capture " + op.schema().full_name() + ": " + reason.why);
  }
  if (reason.host_read) replayable_ = false;
  const at::Stack original(stack->begin() + first, stack->end());
  std::vector<Arg> args;
  std::vector<int> needed;
  for (const at::IValue& v : original) {
    args.push_back(SlotArg(v));
    if (args.back().is_value()) needed.push_back(args.back().value);
  }
  Flush(needed);
  at::Stack real = BoxArgs(args, [this](int s) { return slots_[s].real; });
  {
    at::ExcludeDispatchKeyGuard no_tracing(at::DispatchKey::Tracing);
    op.callBoxed(&real);
  }
  stack->resize(first);
  EagerStep step{op, args, {}};
  for (const at::IValue& r : real) {
    // A host read hands real data to host code; nothing after it is replayed.
    if (reason.host_read || !r.isTensor()) {
      stack->push_back(r);
      continue;
    }
    const at::Tensor& t = r.toTensor();
    int slot = -1;
    for (size_t j = 0; j < args.size() && slot < 0; ++j) {  // an in-place op returns its input
      if (args[j].is_value() && slots_[args[j].value].real.is_same(t)) {
        slot = args[j].value;
        stack->push_back(original[j]);
      }
    }
    if (slot < 0) {
      std::shared_ptr<at::TensorImpl> fake = MakeFake(ValueMeta::Of(t));
      slot = NewSlot(op.schema().name(), ValueMeta::Of(t), fake);
      slots_[slot].real = t;
      stack->emplace_back(at::Tensor(fake));
    }
    step.outputs.push_back(slot);
  }
  if (!reason.host_read) program_.steps.push_back(std::move(step));
}

void Tracer::Flush(const std::vector<int>& needed) {
  std::vector<int> outputs, output_slots;
  for (int s : defined_slots_) {
    if (slots_[s].fake.expired() && !Contains(needed, s)) continue;  // dead: nobody can use it
    outputs.push_back(slot_value_.at(s));
    output_slots.push_back(s);
  }
  if (outputs.empty()) {
    StartGraph();
    return;
  }
  graph_.SetOutputs(outputs);
  std::vector<at::Tensor> inputs;
  for (int s : placeholder_slots_) inputs.push_back(slots_[s].real);
  std::shared_ptr<const CompiledRegion> region =
      regions_->Get(position_++, EliminateDeadCode(graph_), *backend_);
  const std::vector<at::Tensor> results = region->Call(inputs, rt::SimClock::Get().now());
  for (size_t i = 0; i < results.size(); ++i) slots_[output_slots[i]].real = results[i];
  program_.steps.push_back(RegionStep{region, placeholder_slots_, output_slots});
  StartGraph();
}

void Tracer::StartGraph() {
  graph_ = Graph();
  slot_value_.clear();
  placeholder_slots_.clear();
  defined_slots_.clear();
}

std::vector<at::Tensor> Tracer::Finish(const std::vector<at::Tensor>& results) {
  std::vector<int> needed;
  for (const at::Tensor& t : results) {
    if (!t.defined()) throw SimError("compile(): the compiled function returned an undefined tensor");
    const int slot = FakeSlot(t);
    program_.output_slots.push_back(slot >= 0 ? slot : ConstantSlot(t));
    if (slot >= 0) needed.push_back(slot);
  }
  Flush(needed);
  program_.num_slots = static_cast<int>(slots_.size());
  std::vector<at::Tensor> real;
  for (int s : program_.output_slots) real.push_back(slots_[s].real);
  return real;
}

}  // namespace compiler
}  // namespace nsim
