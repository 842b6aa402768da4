#pragma once
// OperatorEntry: everything the dispatcher knows about one op: its schema,
// the kernel registered at each dispatch key (with where it was registered),
// and the resolved dispatch table consulted on every call.
#include <array>
#include <optional>
#include <string>

#include "backend/dispatch_key.h"
#include "backend/function_schema.h"
#include "backend/kernel_function.h"

namespace nsim {
namespace at {

class OperatorEntry {
 public:
  explicit OperatorEntry(std::string full_name) : full_name_(std::move(full_name)) {}

  const std::string& full_name() const { return full_name_; }  // "aten::mul.Tensor"
  bool has_schema() const { return schema_.has_value(); }
  const FunctionSchema& schema() const { return *schema_; }

  // Registration; `where` is "file:line". Duplicates throw naming both places.
  void SetSchema(FunctionSchema schema, const std::string& where);
  void ClearSchema() { schema_.reset(); }
  void SetKernel(DispatchKey key, KernelFunction k, const std::string& where);
  void ClearKernel(DispatchKey key);
  const KernelFunction& kernel(DispatchKey key) const { return kernels_[Index(key)].kernel; }

  // Recomputes the dispatch table; `fallbacks` are the per-key boxed
  // fallbacks (indexed by runtime key). See Note [Kernel resolution].
  void UpdateTable(const KernelFunction* fallbacks);

  // Runtime keys that do not fall through for this op (backend keys always;
  // Tracing only when a kernel or fallback is registered there).
  DispatchKeySet dispatch_mask() const { return mask_; }
  // nullptr when the key has no kernel (an error for backend keys).
  const KernelFunction* lookup(DispatchKey key) const { return table_[Index(key)]; }

 private:
  static int Index(DispatchKey k) { return static_cast<int>(k); }
  void CheckSignature(const KernelFunction& k, const std::string& where) const;

  struct Slot {
    KernelFunction kernel;
    std::string where;
  };
  std::string full_name_;
  std::optional<FunctionSchema> schema_;
  std::string schema_where_;
  std::array<Slot, kNumDispatchKeys> kernels_;
  std::array<const KernelFunction*, kNumRuntimeKeys> table_{};
  DispatchKeySet mask_;
};

}  // namespace at
}  // namespace nsim
