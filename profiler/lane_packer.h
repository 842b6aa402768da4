#pragma once
// Chrome-trace viewers require the slices of one lane to nest strictly
// (Perfetto moves a partially overlapping slice to an error track). Pipelined
// instructions and overlapping queue work do overlap, so each logical lane is
// split into as few sub-lanes as keep every sub-lane strictly nested.
#include <cstdint>
#include <vector>

namespace nsim {
namespace prof {

struct Span {
  int64_t start = 0;
  int64_t end = 0;
};

// `spans` must be sorted by start ascending, then end descending (parents
// before their children). Returns the sub-lane (0, 1, ...) of each span: the
// lowest one on which it ends before, or nests inside, what is still open.
std::vector<int> PackNestedLanes(const std::vector<Span>& spans);

}  // namespace prof
}  // namespace nsim
