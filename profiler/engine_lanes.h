#pragma once
// Display order of device lanes, as Neuron Explorer lists engines. Lane names
// come from the adapter (EngineLaneName() in sim/kernel/kernel.h); names not
// listed here sort after these, alphabetically.
//
// An execution on several physical cores (a logical core of LNC>1) shows
// each core's lanes: "core1/VectorE", "core1/qSyncIO0" (CoreLane), ordered
// by core, then as one core's lanes are.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace nsim {
namespace prof {

const std::vector<std::string>& CanonicalEngineLanes();  // TensorE, VectorE, ScalarE, GpSimd, Sync
// Orders `lanes` canonically and removes duplicates.
std::vector<std::string> OrderEngineLanes(std::vector<std::string> lanes);

// Physical core `core`'s lane `lane` ("core1/VectorE").
std::string CoreLane(int core, const std::string& lane);
// The display rank of an engine lane: by core (plain lanes first), then
// canonically within the core (lanes not listed after, at one rank).
int64_t EngineLaneRank(const std::string& lane);
// The engine lanes to show for an execution whose instructions ran on
// `lanes`: the canonical engines of every core seen, plus `lanes`, ordered.
std::vector<std::string> EngineLanesToShow(const std::set<std::string>& lanes);

}  // namespace prof
}  // namespace nsim
