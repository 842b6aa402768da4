#include "profiler/counters.h"

#include <algorithm>
#include <map>
#include <set>

#include "profiler/engine_lanes.h"
#include "sim/base/intervals.h"

namespace nsim {
namespace prof {
namespace {

std::map<std::string, Intervals> BusyByLane(const DeviceExecution& exec) {
  std::map<std::string, Intervals> raw;
  for (const InstructionSlice& s : exec.instructions) raw[s.lane].emplace_back(s.start, s.end);
  std::set<std::string> seen;
  for (const auto& [lane, intervals] : raw) seen.insert(lane);
  for (const std::string& lane : EngineLanesToShow(seen)) raw[lane];  // idle engines show as 0 %
  for (auto& [lane, intervals] : raw) intervals = MergeIntervals(std::move(intervals));
  return raw;
}

// HBM bytes of `d` that fall in [from, to), assuming a constant rate over the
// piece. Over the whole execution they add up to the summary's HBM bytes
// (read + write: an HBM-to-HBM copy moves its bytes twice).
double HbmBytesIn(const DmaSlice& d, Picos from, Picos to) {
  if (d.end <= d.start) return (d.start >= from && d.start < to) ? d.hbm_bytes : 0;
  const Picos overlap = std::min(d.end, to) - std::max(d.start, from);
  return overlap <= 0 ? 0 : static_cast<double>(d.hbm_bytes) * overlap / (d.end - d.start);
}

}  // namespace

std::vector<CounterSample> UtilisationTimeline(const DeviceExecution& exec, int windows) {
  const Picos length = exec.end - exec.start;
  std::vector<CounterSample> out;
  if (length <= 0 || windows <= 0) return out;
  const auto busy = BusyByLane(exec);
  std::vector<std::string> lanes;
  for (const auto& [lane, intervals] : busy) lanes.push_back(lane);
  lanes = OrderEngineLanes(lanes);
  for (int w = 0; w < windows; ++w) {
    const Picos from = length * w / windows, to = length * (w + 1) / windows;
    if (to <= from) continue;
    CounterSample sample;
    sample.time = exec.start + from;
    double bytes = 0;
    for (const DmaSlice& d : exec.dma) bytes += HbmBytesIn(d, from, to);
    sample.hbm_gb_per_s = bytes / PicosToNanos(to - from);  // bytes per ns == GB/s
    for (const std::string& lane : lanes) {
      const double share = static_cast<double>(OverlapWith(busy.at(lane), from, to)) / (to - from);
      sample.engine_percent.emplace_back(lane, 100.0 * share);
    }
    out.push_back(std::move(sample));
  }
  CounterSample closing;
  closing.time = exec.end;
  for (const std::string& lane : lanes) closing.engine_percent.emplace_back(lane, 0.0);
  out.push_back(std::move(closing));
  return out;
}

}  // namespace prof
}  // namespace nsim
