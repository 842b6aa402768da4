#include "profiler/html_page.h"

#include "third_party/vega/vega_js.h"

namespace nsim {
namespace prof {
namespace {

constexpr const char* kStyle = R"css(
body { font: 14px system-ui, sans-serif; margin: 24px; color: #222; max-width: 1400px; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 8px 0; } td, th { padding: 2px 10px; border-bottom: 1px solid #eee; }
th { text-align: left; background: #f6f6f6; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.chart { margin: 8px 0; } .note { color: #666; }
)css";

// Draws every chart; a failure is shown in the page and logged to the console
// (the headless-browser test fails on console errors).
constexpr const char* kDrawScript = R"js(
const specs = JSON.parse(document.getElementById('nsim-charts').textContent);
window.nsimCharts = Promise.all(Object.entries(specs).map(([id, spec]) =>
  vegaEmbed('#chart-' + id, spec, {actions: false, renderer: 'svg'})
    .catch(err => { console.error('chart ' + id + ': ' + err);
                    document.getElementById('chart-' + id).textContent = 'chart failed: ' + err; })));
window.nsimCharts.then(() => document.body.setAttribute('data-charts-drawn', String(Object.keys(specs).length)));
)js";

// Counts console errors and uncaught exceptions into <html data-errors>, so
// a headless browser (tools/tests/test_report_html.py) can tell a page that
// drew from one that failed.
constexpr const char* kErrorCounter = R"js(
(function () {
  const count = () => document.documentElement.setAttribute('data-errors',
      String(Number(document.documentElement.getAttribute('data-errors') || 0) + 1));
  const original = console.error;
  console.error = function () { count(); original.apply(console, arguments); };
  window.addEventListener('error', count);
  window.addEventListener('unhandledrejection', count);
})();
)js";

// JSON inside <script type="application/json">: "</" must not close the tag.
std::string ScriptSafe(std::string json) {
  for (size_t i = 0; (i = json.find("</", i)) != std::string::npos; i += 3) json.replace(i, 2, "<\\/");
  return json;
}

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string HtmlTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                      const std::vector<bool>& numeric) {
  std::string out = "<table><tr>";
  for (const std::string& h : header) out += "<th>" + HtmlEscape(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      const bool n = i < numeric.size() && numeric[i];
      out += (n ? "<td class=\"n\">" : "<td>") + HtmlEscape(row[i]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string HtmlPage(const std::string& title, const std::string& intro_html,
                     const std::vector<HtmlSection>& sections) {
  nlohmann::json charts = nlohmann::json::object();
  std::string body;
  for (const HtmlSection& s : sections) {
    body += "<h2 id=\"" + HtmlEscape(s.id) + "\">" + HtmlEscape(s.title) + "</h2>\n" + s.html;
    if (!s.chart.is_null()) {
      body += "<div class=\"chart\" id=\"chart-" + HtmlEscape(s.id) + "\"></div>\n";
      charts[s.id] = s.chart;
    }
  }
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
                     HtmlEscape(title) + "</title>\n<style>" + kStyle + "</style>\n";
  page += "<script>" + std::string(kErrorCounter) + "</script>\n<script>";
  page += kVegaJs;
  page += "</script>\n<script>";
  page += kVegaLiteJs;
  page += "</script>\n<script>";
  page += kVegaEmbedJs;
  page += "</script>\n</head><body>\n<h1>" + HtmlEscape(title) + "</h1>\n" + intro_html + body;
  page += "<script type=\"application/json\" id=\"nsim-charts\">" + ScriptSafe(charts.dump()) + "</script>\n";
  page += "<script>" + std::string(kDrawScript) + "</script>\n</body></html>\n";
  return page;
}

}  // namespace prof
}  // namespace nsim
