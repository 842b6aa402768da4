#include "profiler/intervals.h"

#include <algorithm>

namespace nsim {
namespace prof {

std::vector<Interval> MergeIntervals(std::vector<Interval> intervals) {
  intervals.erase(std::remove_if(intervals.begin(), intervals.end(),
                                 [](const Interval& i) { return i.end <= i.start; }),
                  intervals.end());
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> merged;
  for (const Interval& i : intervals) {
    if (!merged.empty() && i.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, i.end);
    } else {
      merged.push_back(i);
    }
  }
  return merged;
}

Picos TotalLength(const std::vector<Interval>& merged) {
  Picos total = 0;
  for (const Interval& i : merged) total += i.end - i.start;
  return total;
}

Picos OverlapWith(const std::vector<Interval>& merged, Picos from, Picos to) {
  // First interval that ends after `from`; merged intervals are sorted by both ends.
  auto it = std::upper_bound(merged.begin(), merged.end(), from,
                             [](Picos t, const Interval& i) { return t < i.end; });
  Picos total = 0;
  for (; it != merged.end() && it->start < to; ++it) {
    total += std::min(it->end, to) - std::max(it->start, from);
  }
  return total;
}

}  // namespace prof
}  // namespace nsim
