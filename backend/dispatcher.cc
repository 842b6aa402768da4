#include "backend/dispatcher.h"

#include <algorithm>

#include "sim/base/error.h"

namespace nsim {
namespace at {
namespace detail {

void DispatchInfo::Add(const IValue& v) {
  if (v.isTensor()) Add(v.toTensor());
  else if (v.isTensorList()) Add(v.toTensorList());
  else if (v.isDevice()) Add(v.toDevice());
}

void ThrowNotImplemented(const OperatorEntry& e, DispatchKey key, const DispatchInfo& info) {
  ::nsim::at::ThrowNotImplemented(e.full_name(), key, info.dtype);
}

void ThrowDeviceMismatch(const DispatchInfo& info) {
  throw SimError("Expected all tensors to be on the same device, but found at least two devices, " +
                 info.device.str() + " and " + info.other_device.str() + "!");
}

void CheckTypedSignature(const OperatorEntry& e, const std::vector<ArgType>& args,
                         int num_returns) {
  std::vector<ArgType> want;
  for (const Argument& a : e.schema().arguments()) want.push_back(a.type);
  if (args != want || num_returns != static_cast<int>(e.schema().returns().size())) {
    throw SimError("typed() signature does not match the schema " + e.schema().str());
  }
}

namespace {

DispatchInfo InfoFromStack(const OperatorEntry& e, const Stack& stack) {
  const size_t n = e.schema().arguments().size();
  if (stack.size() < n) {
    throw SimError(e.full_name() + " expects " + std::to_string(n) + " arguments, got " +
                   std::to_string(stack.size()));
  }
  DispatchInfo info;
  for (size_t i = stack.size() - n; i < stack.size(); ++i) info.Add(stack[i]);
  return info;
}

// Note [Scalar lifting]
// A Python number in a device op (`x + 1e-6` with x on neuron) reaches the
// dispatcher as a 0-dim "wrapped number" CPU tensor. Keys whose traits say
// lifts_cpu_scalars (Neuron) copy such tensors to the op's device before the
// kernel runs, through Tensor::to(), i.e. aten::to -> aten::_to_copy ->
// aten::copy_ and the registered host-to-device copy function. This is what
// TorchNeuron does (the study's epsilon add triggers a host-to-device copy),
// and it makes the copy visible to observers as ops nested in the one that
// needed it. The lifted tensor stays a wrapped number, so type promotion is
// unchanged (bf16 x + 1e-6 stays bf16). Ops that move data between devices
// (copy_, _to_copy: schema device_check false) are never lifted.
void LiftCpuScalars(Device device, Stack* stack, size_t first) {
  for (size_t i = first; i < stack->size(); ++i) {
    IValue& v = (*stack)[i];
    if (!v.isTensor()) continue;
    const Tensor& t = v.toTensor();
    if (!t.is_cpu() || t.dim() != 0) continue;
    Tensor lifted = t.to(device);
    lifted.unsafeGetTensorImpl()->set_wrapped_number(t.unsafeGetTensorImpl()->is_wrapped_number());
    v = IValue(std::move(lifted));
  }
}

void PrepareArguments(const OperatorEntry& e, DispatchKey key, const DispatchInfo& info,
                      Stack* stack) {
  if (!e.schema().device_check()) return;
  if (info.mismatch) ThrowDeviceMismatch(info);
  if (NeedsLifting(e, key, info)) {
    LiftCpuScalars(info.device, stack, stack->size() - e.schema().arguments().size());
  }
}

}  // namespace
}  // namespace detail

void ThrowNotImplemented(const std::string& op_full_name, DispatchKey key, ScalarType dtype) {
  std::string msg = op_full_name + " is not implemented for the " + ToString(key) + " backend";
  if (dtype != ScalarType::Undefined) msg += std::string(" (dtype ") + ToString(dtype) + ")";
  throw SimError(msg);
}

// --- OperatorHandle -----------------------------------------------------------

void OperatorHandle::callBoxed(Stack* stack) const {
  const detail::DispatchInfo info = detail::InfoFromStack(*entry_, *stack);
  const DispatchKey key = detail::SelectKey(*entry_, info.keys);
  const KernelFunction* k = entry_->lookup(key);
  if (k == nullptr) detail::ThrowNotImplemented(*entry_, key, info);
  Dispatcher::Singleton().CallSelected(*entry_, key, *k, info, stack);
}

void OperatorHandle::redispatchBoxed(DispatchKey below, Stack* stack) const {
  const detail::DispatchInfo info = detail::InfoFromStack(*entry_, *stack);
  const DispatchKeySet lower((1u << static_cast<int>(below)) - 1);
  const LocalDispatchKeySet& tls = ThreadLocalKeys();
  const DispatchKey key =
      (((info.keys | tls.included) - tls.excluded) & entry_->dispatch_mask() & lower).highest();
  const KernelFunction* k = entry_->lookup(key);
  if (k == nullptr) detail::ThrowNotImplemented(*entry_, key, info);
  detail::PrepareArguments(*entry_, key, info, stack);
  k->callBoxed(*this, stack);
}

// --- Dispatcher ---------------------------------------------------------------

Dispatcher& Dispatcher::Singleton() {
  // Never destroyed: static Library objects deregister during exit.
  static Dispatcher* d = new Dispatcher;
  return *d;
}

OperatorEntry& Dispatcher::FindOrCreate(const std::string& full_name) {
  std::unique_ptr<OperatorEntry>& slot = ops_[full_name];
  if (!slot) {
    slot = std::make_unique<OperatorEntry>(full_name);
    slot->UpdateTable(fallbacks_);
  }
  return *slot;
}

std::optional<OperatorHandle> Dispatcher::findSchema(const std::string& full_name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(full_name);
  if (it == ops_.end() || !it->second->has_schema()) return std::nullopt;
  return OperatorHandle(it->second.get());
}

OperatorHandle Dispatcher::findSchemaOrThrow(const std::string& full_name) {
  std::optional<OperatorHandle> op = findSchema(full_name);
  if (!op) throw SimError("Could not find schema for " + full_name);
  return *op;
}

std::vector<std::string> Dispatcher::ListOps() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& kv : ops_) {
    if (kv.second->has_schema()) names.push_back(kv.first);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void Dispatcher::RegisterDef(FunctionSchema schema, const std::string& where) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = schema.full_name();
  FindOrCreate(name).SetSchema(std::move(schema), where);
}

void Dispatcher::DeregisterDef(const std::string& full_name) {
  std::lock_guard<std::mutex> lock(mu_);
  FindOrCreate(full_name).ClearSchema();
}

void Dispatcher::RegisterImpl(const std::string& full_name, DispatchKey key, KernelFunction k,
                              const std::string& where) {
  std::lock_guard<std::mutex> lock(mu_);
  OperatorEntry& e = FindOrCreate(full_name);
  e.SetKernel(key, std::move(k), where);
  e.UpdateTable(fallbacks_);
}

void Dispatcher::DeregisterImpl(const std::string& full_name, DispatchKey key) {
  std::lock_guard<std::mutex> lock(mu_);
  OperatorEntry& e = FindOrCreate(full_name);
  e.ClearKernel(key);
  e.UpdateTable(fallbacks_);
}

void Dispatcher::RegisterFallback(DispatchKey key, KernelFunction k, const std::string& where) {
  std::lock_guard<std::mutex> lock(mu_);
  const int i = static_cast<int>(key);
  if (i >= kNumRuntimeKeys) throw SimError("fallback registered at " + where + " for alias key " + ToString(key));
  if (fallbacks_[i].valid()) {
    throw SimError(std::string("a fallback for dispatch key ") + ToString(key) +
                   " is already registered at " + fallback_where_[i] +
                   "; duplicate registration at " + where);
  }
  fallbacks_[i] = std::move(k);
  fallback_where_[i] = where;
  UpdateAllTables();
}

void Dispatcher::DeregisterFallback(DispatchKey key) {
  std::lock_guard<std::mutex> lock(mu_);
  fallbacks_[static_cast<int>(key)] = KernelFunction();
  UpdateAllTables();
}

void Dispatcher::UpdateAllTables() {
  for (auto& kv : ops_) kv.second->UpdateTable(fallbacks_);
}

void Dispatcher::CallSelected(const OperatorEntry& e, DispatchKey key, const KernelFunction& k,
                              const detail::DispatchInfo& info, Stack* stack) {
  const OperatorHandle op(const_cast<OperatorEntry*>(&e));
  if (!HooksActive() || Unobserved()) {
    detail::PrepareArguments(e, key, info, stack);
    k.callBoxed(op, stack);
    return;
  }
  // Lifting happens inside the scope, so the host-to-device copy it issues
  // is observed as a child of this op.
  RecordOpScope scope(e.schema(), key, *stack);
  detail::PrepareArguments(e, key, info, stack);
  k.callBoxed(op, stack);
  scope.End(*stack);
}

}  // namespace at
}  // namespace nsim

namespace nsim {
namespace at {
namespace detail {
const Tensor& UndefinedTensor() {
  static const Tensor* t = new Tensor();
  return *t;
}
}  // namespace detail
}  // namespace at
}  // namespace nsim
