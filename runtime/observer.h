#pragma once
// Lets the profiler watch the runtime without the runtime knowing it: every
// execution and copy record is handed to the registered observers when the
// item has completed on the chip (its device times and results filled), in
// submission order per core, at the host call that found it complete. At
// submission, OnSubmit sees the record with its host-side fields only (for
// context that exists then, e.g. the framework op in progress).
//
//   class Lanes : public RuntimeObserver {
//     void OnExecution(const ExecutionRecord& r) override { ... r.device_start ... }
//   };
//   Lanes lanes;
//   AddRuntimeObserver(&lanes);    // every core, from now on
//   RemoveRuntimeObserver(&lanes);
//
// Cost when none is registered: one relaxed load and a branch per record.
#include <atomic>

#include "runtime/execution_record.h"

namespace nsim {
namespace rt {

class RuntimeObserver {
 public:
  virtual ~RuntimeObserver() = default;
  // Contract: callbacks must not add or remove observers.
  virtual void OnExecution(const ExecutionRecord& record) { (void)record; }
  virtual void OnCopy(const ExecutionRecord& record) { (void)record; }
  // May note what it needs later in record.submit_context.
  virtual void OnSubmit(ExecutionRecord& record) { (void)record; }
};

// Not owned; must stay registered until removed. Adding an observer twice or
// removing one that is not registered throws RuntimeError.
void AddRuntimeObserver(RuntimeObserver* observer);
void RemoveRuntimeObserver(RuntimeObserver* observer);

namespace detail {
extern std::atomic<bool> g_observers_active;
// Calls OnExecution or OnCopy (by record.kind) on every observer, in the
// order they were added.
void NotifyObservers(const ExecutionRecord& record);
void NotifySubmitted(ExecutionRecord& record);  // OnSubmit on every observer
}  // namespace detail

inline bool RuntimeObserversActive() { return detail::g_observers_active.load(std::memory_order_relaxed); }

}  // namespace rt
}  // namespace nsim
