#pragma once
// ReusePool: objects at stable addresses (a deque), handed out again once
// released. The model creates and forgets some objects at a high rate (a DMA
// transfer per dma_copy, a flow per piece, a done event per blocked flow);
// allocating and constructing each one cost more than its bookkeeping.
#include <deque>
#include <vector>

namespace nsim {

template <class T>
class ReusePool {
 public:
  // A released object as it was left, or a new default-constructed one.
  T* Acquire() {
    if (free_.empty()) return &items_.emplace_back();
    T* t = free_.back();
    free_.pop_back();
    return t;
  }
  void Release(T* t) { free_.push_back(t); }
  void Clear() {  // every object handed out is forgotten
    items_.clear();
    free_.clear();
  }

 private:
  std::deque<T> items_;
  std::vector<T*> free_;
};

}  // namespace nsim
