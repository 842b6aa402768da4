#pragma once
// The union of [start, end) intervals of simulated time: busy time is the
// union of the intervals an engine worked in (pipelined instructions
// overlap), and utilisation counters need the part of it inside a window.
// The one definition: the model's streaming unions (sim/model/interval_union.h,
// interval_set.h) are checked against MergeIntervals, and the profiler uses it.
#include <algorithm>
#include <utility>
#include <vector>

#include "sim/base/time.h"

namespace nsim {

using Intervals = std::vector<std::pair<Picos, Picos>>;

// Sorted, disjoint union of [start, end) intervals (empty ones dropped;
// touching ones merge).
inline Intervals MergeIntervals(Intervals iv) {
  if (!std::is_sorted(iv.begin(), iv.end())) std::sort(iv.begin(), iv.end());
  Intervals out;
  for (const auto& [s, e] : iv) {
    if (e <= s) continue;
    if (!out.empty() && s <= out.back().second) {
      out.back().second = std::max(out.back().second, e);
    } else {
      out.emplace_back(s, e);
    }
  }
  return out;
}

// Total length of merged (disjoint) intervals.
inline Picos IntervalsLength(const Intervals& merged) {
  Picos total = 0;
  for (const auto& [s, e] : merged) total += e - s;
  return total;
}

// Length of merged ∩ [from, to).
inline Picos OverlapWith(const Intervals& merged, Picos from, Picos to) {
  // First interval that ends after `from`: merged intervals are sorted by both ends.
  auto it = std::upper_bound(merged.begin(), merged.end(), from,
                             [](Picos t, const std::pair<Picos, Picos>& i) { return t < i.second; });
  Picos total = 0;
  for (; it != merged.end() && it->first < to; ++it) total += std::min(it->second, to) - std::max(it->first, from);
  return total;
}

}  // namespace nsim
