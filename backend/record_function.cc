#include "backend/record_function.h"

#include <algorithm>
#include <mutex>

#include "runtime/clock.h"

namespace nsim {
namespace at {
namespace detail {
std::atomic<bool> g_hooks_active{false};
}  // namespace detail

namespace {

struct Hooks {
  std::mutex mu;
  std::vector<OpObserver*> observers;
  HostCostModel* cost_model = nullptr;
};

Hooks& GetHooks() {
  static Hooks* hooks = new Hooks;  // never destroyed: ops may run during static destruction
  return *hooks;
}

void UpdateActive(Hooks& h) {
  detail::g_hooks_active.store(!h.observers.empty() || h.cost_model != nullptr);
}

std::atomic<uint64_t> g_next_correlation_id{1};
thread_local OpCall* t_current = nullptr;  // innermost observed op on this thread

}  // namespace

std::vector<IntList> InputShapes(const OpCall& call) {
  std::vector<IntList> shapes;
  for (const IValue& v : *call.inputs) shapes.push_back(v.isTensor() ? v.toTensor().sizes() : IntList{});
  return shapes;
}

std::vector<std::string> InputDtypes(const OpCall& call) {
  std::vector<std::string> types;
  for (const IValue& v : *call.inputs) {
    if (v.isTensor()) types.push_back(ToString(v.toTensor().dtype()));
    else if (v.isScalar()) types.push_back("Scalar");
    else types.push_back(v.isIntList() ? "ScalarList" : "");
  }
  return types;
}

void AddOpObserver(OpObserver* observer) {
  Hooks& h = GetHooks();
  std::lock_guard<std::mutex> lock(h.mu);
  if (std::find(h.observers.begin(), h.observers.end(), observer) != h.observers.end()) {
    throw SimError("AddOpObserver: observer already registered");
  }
  h.observers.push_back(observer);
  UpdateActive(h);
}

void RemoveOpObserver(OpObserver* observer) {
  Hooks& h = GetHooks();
  std::lock_guard<std::mutex> lock(h.mu);
  h.observers.erase(std::remove(h.observers.begin(), h.observers.end(), observer),
                    h.observers.end());
  UpdateActive(h);
}

HostCostModel* SetHostCostModel(HostCostModel* model) {
  Hooks& h = GetHooks();
  std::lock_guard<std::mutex> lock(h.mu);
  HostCostModel* previous = h.cost_model;
  h.cost_model = model;
  UpdateActive(h);
  return previous;
}

HostCostModel* GetHostCostModel() { return GetHooks().cost_model; }

RecordOpScope::RecordOpScope(const FunctionSchema& schema, DispatchKey key, const Stack& inputs)
    : inputs_(inputs), parent_(t_current) {
  rt::SimClock& clock = rt::SimClock::Get();
  call_ = OpCall{&schema,
                 key,
                 g_next_correlation_id.fetch_add(1, std::memory_order_relaxed),
                 parent_ != nullptr ? parent_->correlation_id : 0,
                 parent_ != nullptr ? parent_->depth + 1 : 0,
                 clock.now(),
                 0,
                 &inputs_,
                 nullptr};
  t_current = &call_;
  // Observers are copied so one may remove itself from inside a callback.
  std::vector<OpObserver*> observers;
  HostCostModel* cost = nullptr;
  {
    Hooks& h = GetHooks();
    std::lock_guard<std::mutex> lock(h.mu);
    observers = h.observers;
    cost = h.cost_model;
  }
  for (OpObserver* o : observers) o->OnOpBegin(call_);
  if (cost != nullptr && Traits(key).charges_host_cost) clock.Advance(cost->DispatchCost(call_));
}

namespace {
thread_local bool t_unobserved = false;
}  // namespace

UnobservedScope::UnobservedScope() : previous_(t_unobserved) { t_unobserved = true; }
UnobservedScope::~UnobservedScope() { t_unobserved = previous_; }
bool Unobserved() { return t_unobserved; }

RecordOpScope::~RecordOpScope() {
  if (!ended_) Finish(nullptr);
}

void RecordOpScope::End(const Stack& outputs) { Finish(&outputs); }

void RecordOpScope::Finish(const Stack* outputs) {
  ended_ = true;
  t_current = parent_;
  call_.end = rt::SimClock::Get().now();
  call_.outputs = outputs;
  std::vector<OpObserver*> observers;
  {
    Hooks& h = GetHooks();
    std::lock_guard<std::mutex> lock(h.mu);
    observers = h.observers;
  }
  for (OpObserver* o : observers) o->OnOpEnd(call_);
}

}  // namespace at
}  // namespace nsim
