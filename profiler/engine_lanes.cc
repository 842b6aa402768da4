#include "profiler/engine_lanes.h"

#include <algorithm>

namespace nsim {
namespace prof {

const std::vector<std::string>& CanonicalEngineLanes() {
  static const std::vector<std::string> lanes = {"TensorE", "VectorE", "ScalarE", "GpSimd", "Sync"};
  return lanes;
}

std::vector<std::string> OrderEngineLanes(std::vector<std::string> lanes) {
  const std::vector<std::string>& canon = CanonicalEngineLanes();
  auto rank = [&canon](const std::string& lane) {
    return static_cast<size_t>(std::find(canon.begin(), canon.end(), lane) - canon.begin());
  };
  std::sort(lanes.begin(), lanes.end(), [&rank](const std::string& a, const std::string& b) {
    const size_t ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a < b;
  });
  lanes.erase(std::unique(lanes.begin(), lanes.end()), lanes.end());
  return lanes;
}

}  // namespace prof
}  // namespace nsim
