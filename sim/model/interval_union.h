#pragma once
// The total length of the union of [start, end) intervals added in any
// order, in bounded memory: once no later interval can start before a time
// `bound`, the intervals ending by then are folded into a running total. The
// total is exact (it equals sorting all intervals and merging them).
#include <algorithm>
#include <utility>
#include <vector>

#include "sim/base/intervals.h"
#include "sim/base/time.h"

namespace nsim {

class IntervalUnion {
 public:
  void Add(Picos start, Picos end) { pending_.emplace_back(start, end); }
  size_t pending() const { return pending_.size(); }
  // Every interval added from now on starts at or after `bound`.
  void Fold(Picos bound) {
    const Intervals kept = MergeIntervals(std::move(pending_));  // disjoint, not yet final
    pending_.clear();
    for (const auto& [s, e] : kept) {
      if (e <= bound) total_ += e - s;  // nothing later can overlap it
      else pending_.emplace_back(s, e);
    }
  }
  Picos Total() {
    Fold(kMaxPicos);
    return total_;
  }

 private:
  static constexpr Picos kMaxPicos = INT64_MAX;
  Intervals pending_;
  Picos total_ = 0;
};

}  // namespace nsim
