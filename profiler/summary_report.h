#pragma once
// Renders a ProfileDeviceSummary as JSON (device_summary.json, for tools and
// regression checks) and as text (device_summary.txt, for people).
#include <string>

#include "profiler/device_summary.h"

namespace nsim {
namespace prof {

std::string SummaryJson(const ProfileDeviceSummary& summary);
std::string SummaryText(const ProfileDeviceSummary& summary);
// One sentence: the verdict and the numbers that decide it.
std::string RooflineExplanation(const DeviceSummary& summary);

}  // namespace prof
}  // namespace nsim
