#pragma once
// A device summary under Neuron Explorer's Summary names, units and
// definitions (profile schema 7.4.0, docs/profile-tables.md): times in
// seconds, percentages 0-100, FLOPs counted 2 per multiply-add. Every number
// is the simulator's per-execution metrics (Summarize), renamed or divided.
#include <nlohmann/json.hpp>

#include "profiler/device_summary.h"

namespace nsim {
namespace prof {

nlohmann::json ExplorerSummaryJson(const DeviceSummary& s);

}  // namespace prof
}  // namespace nsim
