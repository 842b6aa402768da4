#pragma once
// One self-contained HTML page (no network needed to open it): sections of
// text, tables and Vega-Lite charts, rendered in the browser by the Vega,
// Vega-Lite and vega-embed runtimes embedded in the page (third_party/vega).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nsim {
namespace prof {

struct HtmlSection {
  std::string id;       // element id, e.g. "timeline"; charts draw into <div id="chart-<id>">
  std::string title;
  std::string html;     // text or tables shown above the chart (already escaped)
  nlohmann::json chart; // a Vega-Lite spec, or null for a text-only section
};

std::string HtmlPage(const std::string& title, const std::string& intro_html,
                     const std::vector<HtmlSection>& sections);

// Helpers for the section bodies.
std::string HtmlEscape(const std::string& text);
// A table; cells are escaped. `numeric` columns are right-aligned.
std::string HtmlTable(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows,
                      const std::vector<bool>& numeric = {});

}  // namespace prof
}  // namespace nsim
