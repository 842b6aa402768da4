#include "profiler/engine_lanes.h"

#include <algorithm>
#include <cctype>

namespace nsim {
namespace prof {
namespace {

constexpr const char* kCorePrefix = "core";

// "core1/VectorE" -> (1, "VectorE"); a plain lane -> (-1, lane).
std::pair<int, std::string> SplitCoreLane(const std::string& lane) {
  const size_t slash = lane.find('/');
  if (lane.rfind(kCorePrefix, 0) != 0 || slash == std::string::npos) return {-1, lane};
  const std::string digits = lane.substr(4, slash - 4);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return {-1, lane};
  return {std::stoi(digits), lane.substr(slash + 1)};
}

}  // namespace

const std::vector<std::string>& CanonicalEngineLanes() {
  static const std::vector<std::string> lanes = {"TensorE", "VectorE", "ScalarE", "GpSimd", "Sync"};
  return lanes;
}

std::string CoreLane(int core, const std::string& lane) { return kCorePrefix + std::to_string(core) + "/" + lane; }

int64_t EngineLaneRank(const std::string& lane) {
  const std::vector<std::string>& canon = CanonicalEngineLanes();
  const auto [core, engine] = SplitCoreLane(lane);
  const int64_t within = std::find(canon.begin(), canon.end(), engine) - canon.begin();
  return (core + 1) * static_cast<int64_t>(canon.size() + 1) + within;
}

std::vector<std::string> OrderEngineLanes(std::vector<std::string> lanes) {
  std::sort(lanes.begin(), lanes.end(), [](const std::string& a, const std::string& b) {
    const int64_t ra = EngineLaneRank(a), rb = EngineLaneRank(b);
    return ra != rb ? ra < rb : a < b;
  });
  lanes.erase(std::unique(lanes.begin(), lanes.end()), lanes.end());
  return lanes;
}

std::vector<std::string> EngineLanesToShow(const std::set<std::string>& lanes) {
  std::set<int> cores;
  for (const std::string& lane : lanes) cores.insert(SplitCoreLane(lane).first);
  if (cores.empty()) cores.insert(-1);
  std::vector<std::string> out(lanes.begin(), lanes.end());
  for (int core : cores) {
    for (const std::string& e : CanonicalEngineLanes()) out.push_back(core < 0 ? e : CoreLane(core, e));
  }
  return OrderEngineLanes(out);
}

}  // namespace prof
}  // namespace nsim
