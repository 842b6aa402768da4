#pragma once
// <out>/report.html of the study: the three implementations side by side with
// the measured figures (a chart and a table), linking each implementation's
// own report.html.
#include <string>

#include <nlohmann/json.hpp>

namespace nsim {
namespace study {

// `report` is ReportJson()'s document.
std::string StudyPageHtml(const nlohmann::json& report);

}  // namespace study
}  // namespace nsim
