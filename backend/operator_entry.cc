#include "backend/operator_entry.h"

#include "sim/base/error.h"

namespace nsim {
namespace at {
namespace {

std::string TypeList(const std::vector<ArgType>& types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + std::string(ToString(types[i]));
  return s + ")";
}

}  // namespace

void OperatorEntry::SetSchema(FunctionSchema schema, const std::string& where) {
  if (schema_) {
    throw SimError("schema for " + full_name_ + " is declared twice: at " + schema_where_ +
                   " and at " + where);
  }
  schema_ = std::move(schema);
  schema_where_ = where;
  for (const Slot& s : kernels_) {
    if (s.kernel.valid()) CheckSignature(s.kernel, s.where);
  }
}

void OperatorEntry::SetKernel(DispatchKey key, KernelFunction k, const std::string& where) {
  Slot& slot = kernels_[Index(key)];
  if (slot.kernel.valid()) {
    throw SimError(full_name_ + " already has a kernel for dispatch key " + ToString(key) +
                   " registered at " + slot.where + "; duplicate registration at " + where);
  }
  if (schema_) CheckSignature(k, where);
  slot = Slot{std::move(k), where};
}

void OperatorEntry::ClearKernel(DispatchKey key) { kernels_[Index(key)] = Slot{}; }

void OperatorEntry::CheckSignature(const KernelFunction& k, const std::string& where) const {
  if (!k.is_typed()) return;  // boxed kernels take any signature
  std::vector<ArgType> want;
  for (const Argument& a : schema_->arguments()) want.push_back(a.type);
  const int returns = static_cast<int>(schema_->returns().size());
  if (k.arg_types() != want || k.num_returns() != returns) {
    throw SimError("kernel for " + full_name_ + " registered at " + where + " takes " +
                   TypeList(k.arg_types()) + " and returns " + std::to_string(k.num_returns()) +
                   " tensor(s), but the schema is " + schema_->str());
  }
}

// Note [Kernel resolution]
// For a backend key K (CPU, Neuron, Meta) the kernel is, in order: the op's
// own kernel at K; its CompositeExplicit kernel (written in terms of other
// ops, so valid for every backend); the boxed fallback registered for K;
// otherwise none, and calling it is an error naming op, backend and dtype —
// never a silent run on another backend. For Tracing: the op's kernel, else
// the Tracing fallback, else the key falls through to the next one.
void OperatorEntry::UpdateTable(const KernelFunction* fallbacks) {
  mask_ = DispatchKeySet();
  for (int i = 0; i < kNumRuntimeKeys; ++i) {
    const DispatchKey key = static_cast<DispatchKey>(i);
    const KernelFunction* k = nullptr;
    if (kernels_[i].kernel.valid()) {
      k = &kernels_[i].kernel;
    } else if (Traits(key).is_backend &&
               kernels_[Index(DispatchKey::CompositeExplicit)].kernel.valid()) {
      k = &kernels_[Index(DispatchKey::CompositeExplicit)].kernel;
    } else if (fallbacks[i].valid()) {
      k = &fallbacks[i];
    }
    table_[i] = k;
    if (Traits(key).is_backend || k != nullptr) mask_.add(key);
  }
}

}  // namespace at
}  // namespace nsim
