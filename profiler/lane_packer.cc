#include "profiler/lane_packer.h"

#include <cstddef>

namespace nsim {
namespace prof {

std::vector<int> PackNestedLanes(const std::vector<Span>& spans) {
  std::vector<std::vector<int64_t>> open_ends;  // per sub-lane: ends of open spans, innermost last
  std::vector<int> lane_of(spans.size(), 0);
  for (size_t i = 0; i < spans.size(); ++i) {
    const Span& s = spans[i];
    size_t lane = 0;
    for (; lane < open_ends.size(); ++lane) {
      std::vector<int64_t>& ends = open_ends[lane];
      while (!ends.empty() && ends.back() <= s.start) ends.pop_back();
      if (ends.empty() || s.end <= ends.back()) break;
    }
    if (lane == open_ends.size()) open_ends.emplace_back();
    open_ends[lane].push_back(s.end);
    lane_of[i] = static_cast<int>(lane);
  }
  return lane_of;
}

}  // namespace prof
}  // namespace nsim
