#pragma once
// LazyFifo: the FIFO of a DMA engine queue (push_back, front, pop_front,
// empty, clear), allocating nothing until its first push. A std::deque
// allocates a map and a 512-byte node when it is constructed, and the model
// holds kMaxCores x kMaxEngines x (kMaxQueues x kNumEngines) queues: 82,000
// deques, 41 MB of page faults at every process start (issue 12: `nsim run`
// fixed cost), almost all of them never used.
//
// Items live in a vector from `head_` on; the consumed front is dropped when
// the queue empties or when it is at least half the vector, so memory stays
// proportional to the items queued and each item is moved O(1) times.
#include <cstddef>
#include <vector>

namespace nsim {

template <class T>
class LazyFifo {
 public:
  bool empty() const { return head_ == items_.size(); }
  const T& front() const { return items_[head_]; }
  void push_back(const T& v) { items_.push_back(v); }
  // Puts back an item just taken from the front (rare: a DMA engine's pick
  // made ahead of its time and undone).
  void push_front(const T& v) {
    if (head_ > 0) {
      items_[--head_] = v;
    } else {
      items_.insert(items_.begin(), v);
    }
  }
  void pop_front() {
    ++head_;
    if (head_ == items_.size()) {
      clear();
    } else if (head_ * 2 >= items_.size() && head_ >= kCompactAt) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  void clear() {
    items_.clear();  // keeps the capacity: a queue used once is likely used again
    head_ = 0;
  }

 private:
  static constexpr size_t kCompactAt = 64;  // below this, a half-consumed vector is not worth moving
  std::vector<T> items_;
  size_t head_ = 0;
};

}  // namespace nsim
