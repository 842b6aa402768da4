#pragma once
// Interval arithmetic on simulated time: busy time is the union of the
// intervals an engine worked in (pipelined instructions overlap), and the
// utilisation counters need the part of that union inside a window.
#include <vector>

#include "sim/base/time.h"

namespace nsim {
namespace prof {

struct Interval {
  Picos start = 0;
  Picos end = 0;
};

// Sorted, disjoint union of `intervals` (empty ones dropped).
std::vector<Interval> MergeIntervals(std::vector<Interval> intervals);
// Total length of a merged set.
Picos TotalLength(const std::vector<Interval>& merged);
// Length of merged ∩ [from, to).
Picos OverlapWith(const std::vector<Interval>& merged, Picos from, Picos to);

}  // namespace prof
}  // namespace nsim
