#pragma once
// Display order of device lanes, as Neuron Explorer lists engines. Lane names
// come from the adapter (EngineLaneName() in sim/kernel/kernel.h); names not
// listed here sort after these, alphabetically.
#include <string>
#include <vector>

namespace nsim {
namespace prof {

const std::vector<std::string>& CanonicalEngineLanes();  // TensorE, VectorE, ScalarE, GpSimd, Sync
// Orders `lanes` canonically and removes duplicates.
std::vector<std::string> OrderEngineLanes(std::vector<std::string> lanes);

}  // namespace prof
}  // namespace nsim
