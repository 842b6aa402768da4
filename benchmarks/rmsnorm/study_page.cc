#include "benchmarks/rmsnorm/study_page.h"


#include "profiler/html_page.h"
#include "profiler/time_format.h"

namespace nsim {
namespace study {
namespace {

using nlohmann::json;


}  // namespace

std::string StudyPageHtml(const json& report) {
  json bars = json::array();
  std::vector<std::vector<std::string>> rows;
  std::string links = "<p>Per implementation: ";
  for (const auto& [slug, impl] : report["implementations"].items()) {
    const std::string name = impl["name"];
    const double model_us = impl["device_time_ns"].get<double>() / 1000.0;
    bars.push_back({{"implementation", name}, {"source", "model"}, {"self_neuron_us", model_us}});
    std::vector<std::string> row = {name, std::to_string(impl["dispatches"].get<int64_t>()), prof::FormatFixed(model_us, 1),
                                    prof::FormatFixed(impl["self_cpu_ns"].get<double>() / 1000.0, 1), "", "", ""};
    if (impl.contains("study")) {
      const double study_us = impl["study"]["device_time_ns"].get<double>() / 1000.0;
      bars.push_back({{"implementation", name}, {"source", "measured study"}, {"self_neuron_us", study_us}});
      row[4] = prof::FormatFixed(study_us, 1);
      row[5] = prof::FormatFixed(impl["study"]["self_cpu_ns"].get<double>() / 1000.0, 1);
      row[6] = prof::FormatFixed(impl["error_percent"]["device_time"].get<double>(), 1) + " %";
    }
    rows.push_back(row);
    links += "<a href=\"" + prof::HtmlEscape(slug) + "/report.html\">" + prof::HtmlEscape(name) + "</a> ";
  }
  links += "</p>\n";
  const std::string table =
      prof::HtmlTable({"implementation", "dispatches", "Self NEURON (us)", "Self CPU (us)", "study Self NEURON (us)",
                       "study Self CPU (us)", "device-time error"},
                      rows, {false, true, true, true, true, true, true});
  const json chart = {
      {"width", 500},
      {"height", {{"step", 22}}},
      {"data", {{"values", bars}}},
      {"mark", "bar"},
      {"encoding",
       {{"y", {{"field", "source"}, {"type", "nominal"}, {"title", nullptr}}},
        {"row", {{"field", "implementation"}, {"type", "nominal"}, {"sort", nullptr}, {"title", nullptr}}},
        {"x", {{"field", "self_neuron_us"}, {"type", "quantitative"}, {"title", "Self NEURON (us)"}}},
        {"color", {{"field", "source"}, {"type", "nominal"}, {"title", nullptr}}},
        {"tooltip", {{{"field", "implementation"}, {"type", "nominal"}}, {{"field", "source"}, {"type", "nominal"}},
                     {{"field", "self_neuron_us"}, {"type", "quantitative"}}}}}}};
  const std::string intro = "<p>RMSNorm " + report["dtype"].get<std::string>() + " " + report["shape"].dump() +
                            " on " + report["config"]["name"].get<std::string>() + ", " +
                            std::to_string(report["steps"].get<int>()) + " steps, device capture " +
                            (report["device_capture"].get<bool>() ? "on" : "off") + ".</p>\n" + links;
  return prof::HtmlPage("RMSNorm study: three implementations", intro,
                        {{"side_by_side", "Side by side: model and measured study", table, chart}});
}

}  // namespace study
}  // namespace nsim
