#pragma once
// Renders a ProfileDeviceSummary as JSON (summary.json, for tools and
// regression checks; docs/output-schema.md) and as text (summary.txt).
#include <string>

#include <nlohmann/json.hpp>

#include "profiler/device_summary.h"

namespace nsim {
namespace prof {

// summary.json, schema docs/output-schema.md: {"schema", "schema_version",
// "total_time_ns", <the fields of `about`>, "executions", "total"}.
constexpr const char* kSummarySchema = "nsim-summary";
constexpr int kSchemaVersion = 1;
nlohmann::json SummaryDocument(const ProfileDeviceSummary& summary,
                               const nlohmann::json& about = nlohmann::json::object());
std::string SummaryJson(const ProfileDeviceSummary& summary);
std::string SummaryText(const ProfileDeviceSummary& summary);
// One sentence: the verdict and the numbers that decide it.
std::string RooflineExplanation(const DeviceSummary& summary);

}  // namespace prof
}  // namespace nsim
