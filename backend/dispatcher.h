#pragma once
// Dispatcher: the op registry and the call path every op takes (c10's
// Dispatcher, reduced). An op is found by its full name and called either
// typed (the fast path: a direct call of the selected kernel) or boxed (on a
// Stack). Both paths select the kernel the same way: the highest dispatch key
// among the arguments' devices plus the thread's included keys.
//
//   static const auto op = Dispatcher::Singleton()
//       .findSchemaOrThrow("aten::mul.Tensor")
//       .typed<Tensor(const Tensor&, const Tensor&)>();
//   Tensor z = op.call(x, y);
//
// Registration goes through library.h (NSIM_LIBRARY / NSIM_LIBRARY_IMPL).
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/dispatch_key.h"
#include "backend/function_schema.h"
#include "backend/ivalue.h"
#include "backend/kernel_function.h"
#include "backend/operator_entry.h"
#include "backend/record_function.h"

namespace nsim {
namespace at {

namespace detail {

// What the dispatcher reads off an op's arguments: the keys they select, the
// devices they are on and the first dtype (for error messages).
struct DispatchInfo {
  DispatchKeySet keys;
  ScalarType dtype = ScalarType::Undefined;
  Device device;          // device of the first tensor that is not a CPU scalar
  Device other_device;    // a different device seen later (mismatch)
  bool has_device = false;
  bool mismatch = false;
  bool has_cpu_scalar = false;  // a 0-dim CPU tensor, allowed with any device

  void Add(const Tensor& t) {
    if (!t.defined()) return;
    const Device d = t.device();
    keys.add(KeyForDevice(d.type()));
    if (dtype == ScalarType::Undefined) dtype = t.dtype();
    if (d.is_cpu() && t.dim() == 0) {
      has_cpu_scalar = true;
    } else if (!has_device) {
      device = d;
      has_device = true;
    } else if (d != device && !mismatch) {
      mismatch = true;
      other_device = d;
    }
  }
  void Add(const std::optional<Tensor>& t) {
    if (t) Add(*t);
  }
  void Add(const std::vector<Tensor>& list) {
    for (const Tensor& t : list) Add(t);
  }
  void Add(Device d) { keys.add(KeyForDevice(d.type())); }
  void Add(const std::optional<Device>& d) {
    if (d) Add(*d);
  }
  void Add(const IValue& v);
  template <class T> void Add(const T&) {}
};

inline DispatchKey SelectKey(const OperatorEntry& e, DispatchKeySet arg_keys) {
  const LocalDispatchKeySet& tls = ThreadLocalKeys();
  return (((arg_keys | tls.included) - tls.excluded) & e.dispatch_mask()).highest();
}

inline bool NeedsLifting(const OperatorEntry& e, DispatchKey key, const DispatchInfo& info) {
  return info.has_cpu_scalar && info.has_device && Traits(key).lifts_cpu_scalars &&
         e.schema().device_check();
}

[[noreturn]] void ThrowNotImplemented(const OperatorEntry& e, DispatchKey key,
                                      const DispatchInfo& info);
[[noreturn]] void ThrowDeviceMismatch(const DispatchInfo& info);

}  // namespace detail

// "aten::mul.Tensor is not implemented for the Neuron backend (dtype BFloat16)".
// Backends use it too, for dtypes or layouts a kernel does not support.
[[noreturn]] void ThrowNotImplemented(const std::string& op_full_name, DispatchKey key,
                                      ScalarType dtype);

template <class Sig> class TypedOperatorHandle;

class OperatorHandle {
 public:
  explicit OperatorHandle(OperatorEntry* entry) : entry_(entry) {}
  const FunctionSchema& schema() const { return entry_->schema(); }
  const OperatorEntry& entry() const { return *entry_; }

  // The op's arguments are the last schema().arguments().size() entries of
  // `stack`; they are replaced by its results.
  void callBoxed(Stack* stack) const;
  // Runs the kernel of the highest key below `below`, without observers: how
  // a Tracing kernel executes the op it recorded.
  void redispatchBoxed(DispatchKey below, Stack* stack) const;

  // Throws unless Sig matches the schema with canonical types (kernel_function.h).
  template <class Sig> TypedOperatorHandle<Sig> typed() const;

 protected:
  OperatorEntry* entry_;
};

template <class Ret, class... Args>
class TypedOperatorHandle<Ret(Args...)> : public OperatorHandle {
 public:
  explicit TypedOperatorHandle(OperatorEntry* e) : OperatorHandle(e) {}
  Ret call(Args... args) const;
};

class Dispatcher {
 public:
  static Dispatcher& Singleton();

  // full_name: "aten::mul.Tensor" (or "aten::exp" for an op without overload).
  OperatorHandle findSchemaOrThrow(const std::string& full_name);
  std::optional<OperatorHandle> findSchema(const std::string& full_name);
  std::vector<std::string> ListOps();  // every op with a schema, sorted

  // Registration primitives (use library.h). `where` is "file:line".
  void RegisterDef(FunctionSchema schema, const std::string& where);
  void DeregisterDef(const std::string& full_name);
  void RegisterImpl(const std::string& full_name, DispatchKey key, KernelFunction k,
                    const std::string& where);
  void DeregisterImpl(const std::string& full_name, DispatchKey key);
  void RegisterFallback(DispatchKey key, KernelFunction k, const std::string& where);
  void DeregisterFallback(DispatchKey key);

  // The slow path: observers, scalar lifting, device check, boxed call.
  void CallSelected(const OperatorEntry& e, DispatchKey key, const KernelFunction& k,
                    const detail::DispatchInfo& info, Stack* stack);

 private:
  OperatorEntry& FindOrCreate(const std::string& full_name);
  void UpdateAllTables();

  std::mutex mu_;  // guards registration; calls read tables without locking
  std::unordered_map<std::string, std::unique_ptr<OperatorEntry>> ops_;
  KernelFunction fallbacks_[kNumRuntimeKeys];
  std::string fallback_where_[kNumRuntimeKeys];
};

// ---------------------------------------------------------------------------

namespace detail {
void CheckTypedSignature(const OperatorEntry& e, const std::vector<ArgType>& args,
                         int num_returns);
template <class Sig> struct SignatureOf;
template <class Ret, class... Args> struct SignatureOf<Ret(Args...)> {
  static void Check(const OperatorEntry& e) {
    CheckTypedSignature(e, {ParamTraits<Args>::kType...}, ReturnTraits<Ret>::kCount);
  }
};
}  // namespace detail

template <class Sig>
TypedOperatorHandle<Sig> OperatorHandle::typed() const {
  detail::SignatureOf<Sig>::Check(*entry_);
  return TypedOperatorHandle<Sig>(entry_);
}

// Looks an op up once and checks its signature: the idiom for ops.cc.
//   static const auto op = FindOp<Tensor(const Tensor&)>("aten::exp");
template <class Sig>
TypedOperatorHandle<Sig> FindOp(const std::string& full_name) {
  return Dispatcher::Singleton().findSchemaOrThrow(full_name).typed<Sig>();
}

template <class Ret, class... Args>
Ret TypedOperatorHandle<Ret(Args...)>::call(Args... args) const {
  detail::DispatchInfo info;
  (info.Add(args), ...);
  const OperatorEntry& e = *entry_;
  const DispatchKey key = detail::SelectKey(e, info.keys);
  const KernelFunction* k = e.lookup(key);
  if (k == nullptr) detail::ThrowNotImplemented(e, key, info);
  // Fast path: nothing observes, nothing to lift, a typed kernel.
  if (!HooksActive() && k->has_unboxed() && !detail::NeedsLifting(e, key, info)) {
    if (info.mismatch && e.schema().device_check()) detail::ThrowDeviceMismatch(info);
    return k->template callUnboxed<Ret, Args...>(std::forward<Args>(args)...);
  }
  Stack stack;
  stack.reserve(sizeof...(Args));
  (stack.emplace_back(args), ...);
  Dispatcher::Singleton().CallSelected(e, key, *k, info, &stack);
  return detail::ReturnTraits<Ret>::Pop(&stack);
}

}  // namespace at
}  // namespace nsim
