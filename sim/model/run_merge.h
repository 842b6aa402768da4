#pragma once
// Sorts, in place, a vector that interleaves a few runs each already in
// order: an execution's instruction records, pushed as the engines issue
// (each engine in order of start, the engines interleaved as SystemC
// switches between them). A k-way merge of the runs, O(k n) instead of a
// sort's O(n log n), writes the output over the input from the front; a
// record not yet merged whose slot is needed waits in its run's FIFO. The
// FIFOs hold about as many records as the input is out of place, a few for
// records pushed nearly in order. When that exceeds `max_waiting` (runs
// pushed one after another) or a run turns out not to be in order, the
// merge stops and std::sort finishes: same result, bounded extra memory.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

namespace nsim {

namespace run_merge_internal {

// A FIFO in a ring that doubles when full, reused across pushes and pops.
template <typename T>
class Ring {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  const T& front() const { return slots_[head_]; }
  void pop() {
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }
  void push(const T& x) {
    if (size_ == slots_.size()) Grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = x;
    ++size_;
  }
  // Appends every element to `out` and empties the ring.
  void DrainInto(std::vector<T>* out) {
    for (; !empty(); pop()) out->push_back(front());
  }

 private:
  void Grow() {
    std::vector<T> bigger(std::max<size_t>(16, 2 * slots_.size()));
    for (size_t i = 0; i < size_; ++i) bigger[i] = slots_[(head_ + i) & (slots_.size() - 1)];
    slots_.swap(bigger);
    head_ = 0;
  }
  std::vector<T> slots_;  // a power of two in size, or empty
  size_t head_ = 0, size_ = 0;
};

}  // namespace run_merge_internal

// Sorts `v` by `less`, which must order by (key_of(x), run_of(x)) first:
// `run_of(x)` in [0, kRuns) names the run of x, whose elements are expected
// in order of `less`. If a run is not, the result is still sorted (std::sort
// finishes it). Returns whether the merge finished on its own (for tests).
template <int kRuns, typename T, typename KeyOf, typename RunOf, typename Less>
bool MergeInterleavedRuns(std::vector<T>* v, KeyOf key_of, RunOf run_of, Less less, size_t max_waiting) {
  using run_merge_internal::Ring;
  const size_t n = v->size();
  T* const x = v->data();
  Ring<T> waiting[kRuns];        // taken out of the input before their turn, in run order
  size_t next_scan[kRuns] = {};  // past the run's last input slot consumed or moved out
  // Each run's next element: its key, and its input slot (kInRing: the front
  // of its ring; kNone: the run is done, its key kDone).
  constexpr size_t kInRing = static_cast<size_t>(-1), kNone = static_cast<size_t>(-2);
  constexpr auto kDone = std::numeric_limits<decltype(key_of(x[0]))>::max();
  decltype(key_of(x[0])) key[kRuns];
  size_t slot[kRuns];
  size_t total_waiting = 0;
  // Finds run r's next element, at or after input slot `from`.
  auto refill = [&](int r, size_t from) {
    if (!waiting[r].empty()) {
      slot[r] = kInRing;
      key[r] = key_of(waiting[r].front());
      return;
    }
    size_t s = std::max(next_scan[r], from);
    while (s < n && run_of(x[s]) != r) ++s;
    slot[r] = s < n ? s : kNone;
    key[r] = s < n ? key_of(x[s]) : kDone;
  };
  for (int r = 0; r < kRuns; ++r) refill(r, 0);
  size_t p = 0;  // slots [0, p) hold the merged output
  bool gave_up = false, out_of_order = false;
  for (; p < n; ++p) {
    int best = 0;  // the least (key, run)
    for (int r = 1; r < kRuns; ++r) best = key[r] < key[best] ? r : best;
    while (slot[best] == kNone) ++best;  // every run left has the key kDone too
    const T out = slot[best] == kInRing ? waiting[best].front() : x[slot[best]];
    if (p > 0 && less(out, x[p - 1])) {  // a run was not in order
      gave_up = true;
      out_of_order = true;
      break;
    }
    if (slot[best] == p) {  // already in its place
      next_scan[best] = p + 1;
    } else {
      // Slot p is about to be overwritten: an element there not yet merged waits.
      const int at = run_of(x[p]);
      if (p >= next_scan[at]) {
        waiting[at].push(x[p]);
        ++total_waiting;
        next_scan[at] = p + 1;
        if (slot[at] == p) slot[at] = kInRing;
      }
      if (slot[best] == kInRing) {
        waiting[best].pop();
        --total_waiting;
      } else {
        next_scan[best] = slot[best] + 1;
      }
      x[p] = out;
    }
    refill(best, p + 1);
    if (total_waiting > max_waiting) {
      gave_up = true;
      ++p;
      break;
    }
  }
  if (!gave_up) return true;
  // The elements not merged yet are the input's past slot p that were not
  // consumed, and the waiting ones: put them after the output, and sort.
  size_t kept = p;
  for (size_t s = p; s < n; ++s) {
    if (s >= next_scan[run_of(x[s])]) x[kept++] = x[s];
  }
  v->resize(kept);
  for (Ring<T>& w : waiting) w.DrainInto(v);
  // Given up on the bound, slots [0, p) hold the p least in order, unless a
  // run is out of order further on: then the boundary shows it.
  const size_t done = out_of_order ? 0 : p;
  std::sort(v->begin() + static_cast<std::ptrdiff_t>(done), v->end(), less);
  if (done > 0 && done < v->size() && less((*v)[done], (*v)[done - 1])) std::sort(v->begin(), v->end(), less);
  return false;
}

}  // namespace nsim
