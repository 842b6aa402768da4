#include "runtime/observer.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "runtime/errors.h"

namespace nsim {
namespace rt {
namespace {

std::mutex& Mutex() {
  static std::mutex mu;
  return mu;
}

std::vector<RuntimeObserver*>& Observers() {
  static std::vector<RuntimeObserver*> observers;
  return observers;
}

}  // namespace

namespace detail {

std::atomic<bool> g_observers_active{false};

void NotifyObservers(const ExecutionRecord& record) {
  std::lock_guard<std::mutex> lock(Mutex());
  for (RuntimeObserver* o : Observers()) {
    if (record.is_copy()) {
      o->OnCopy(record);
    } else {
      o->OnExecution(record);
    }
  }
}

void NotifySubmitted(ExecutionRecord& record) {
  std::lock_guard<std::mutex> lock(Mutex());
  for (RuntimeObserver* o : Observers()) o->OnSubmit(record);
}

}  // namespace detail

void AddRuntimeObserver(RuntimeObserver* observer) {
  std::lock_guard<std::mutex> lock(Mutex());
  auto& list = Observers();
  if (std::find(list.begin(), list.end(), observer) != list.end()) {
    throw RuntimeError("AddRuntimeObserver: this observer is already registered");
  }
  list.push_back(observer);
  detail::g_observers_active.store(true, std::memory_order_relaxed);
}

void RemoveRuntimeObserver(RuntimeObserver* observer) {
  std::lock_guard<std::mutex> lock(Mutex());
  auto& list = Observers();
  auto it = std::find(list.begin(), list.end(), observer);
  if (it == list.end()) throw RuntimeError("RemoveRuntimeObserver: this observer is not registered");
  list.erase(it);
  detail::g_observers_active.store(!list.empty(), std::memory_order_relaxed);
}

}  // namespace rt
}  // namespace nsim
