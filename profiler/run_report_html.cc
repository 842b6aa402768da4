#include "profiler/run_report_html.h"

#include <algorithm>
#include <cmath>

#include "profiler/engine_lanes.h"
#include "profiler/html_page.h"
#include "profiler/instruction_detail.h"
#include "profiler/source_view.h"
#include "profiler/summary_report.h"
#include "profiler/time_format.h"

namespace nsim {
namespace prof {
namespace {

using nlohmann::json;

std::string Ns(Picos ps) { return FormatFixed(PicosToNanos(ps), 3); }

std::string Arg(const InstructionSlice& s, const std::string& key) {
  for (const auto& [k, v] : s.args)
    if (k == key) return v;
  return "";
}

struct TimelineRows {
  json rows = json::array();
  size_t total = 0;
};

TimelineRows Timeline(const Recording& rec) {
  TimelineRows t;
  auto add = [&](json row) {
    ++t.total;
    if (t.rows.size() < kMaxTimelineSlices) t.rows.push_back(std::move(row));
  };
  for (const RecordedExecution& e : rec.executions) {
    if (!e.captured) continue;
    const DeviceExecution& x = e.exec;
    for (const InstructionSlice& s : x.instructions) {
      add({{"lane", s.lane}, {"opcode", s.opcode}, {"start_ns", PicosToNanos(x.start + s.start)},
           {"end_ns", PicosToNanos(x.start + s.end)}, {"duration_ns", PicosToNanos(s.end - s.start)},
           {"operands", Arg(s, "operands")}, {"line", Arg(s, "line")}, {"kernel", x.kernel_name},
           {"source", SourceLine(s.source)}, {"wait_ns", PicosToNanos(s.waits.total())}});
    }
    for (const DmaSlice& d : x.dma) {
      add({{"lane", d.queue}, {"opcode", "dma_transfer"}, {"start_ns", PicosToNanos(x.start + d.start)},
           {"end_ns", PicosToNanos(x.start + d.end)}, {"duration_ns", PicosToNanos(d.end - d.start)},
           {"operands", std::to_string(d.bytes) + " B on DMA engine " + std::to_string(d.dma_engine)},
           {"line", ""}, {"kernel", x.kernel_name}, {"source", ""}, {"wait_ns", PicosToNanos(d.start - d.submitted)}});
    }
  }
  return t;
}

std::vector<std::string> LaneOrder(const ProfileDeviceSummary& s) {
  std::vector<std::string> lanes;
  for (const EngineStats& e : s.total.engines) lanes.push_back(e.lane);
  for (const DmaQueueStats& q : s.total.dma_queues) lanes.push_back(q.queue);
  return lanes;
}

json Tooltip(std::initializer_list<std::pair<const char*, const char*>> fields) {
  json t = json::array();
  for (const auto& [field, type] : fields) t.push_back({{"field", field}, {"type", type}});
  return t;
}

HtmlSection TimelineSection(const Recording& rec, const ProfileDeviceSummary& s) {
  TimelineRows t = Timeline(rec);
  std::string note = "<p class=\"note\">One bar per instruction and DMA piece, coloured by opcode. "
                     "Scroll to zoom the time axis, drag to pan, double-click to reset; hover a bar for "
                     "its operands and times.";
  if (t.total > t.rows.size()) {
    note += " Showing the first " + std::to_string(t.rows.size()) + " of " + std::to_string(t.total) +
            " slices (trace.json has all).";
  }
  note += "</p>\n";
  const std::vector<std::string> lanes = LaneOrder(s);
  json chart = {
      {"width", 1000},
      {"height", {{"step", 22}}},
      {"data", {{"values", std::move(t.rows)}}},
      {"mark", {{"type", "bar"}, {"cornerRadius", 1}}},
      {"selection", {{"zoom", {{"type", "interval"}, {"bind", "scales"}, {"encodings", {"x"}}}}}},
      {"encoding",
       {{"y", {{"field", "lane"}, {"type", "nominal"}, {"sort", lanes}, {"title", nullptr}}},
        {"x", {{"field", "start_ns"}, {"type", "quantitative"}, {"title", "simulated time (ns)"}}},
        {"x2", {{"field", "end_ns"}}},
        {"color", {{"field", "opcode"}, {"type", "nominal"}, {"title", "opcode"}}},
        {"tooltip", Tooltip({{"lane", "nominal"}, {"opcode", "nominal"}, {"operands", "nominal"},
                             {"start_ns", "quantitative"}, {"end_ns", "quantitative"},
                             {"duration_ns", "quantitative"}, {"line", "nominal"}, {"source", "nominal"},
                             {"wait_ns", "quantitative"}, {"kernel", "nominal"}})}}}};
  return {"timeline", "Timeline: engines and DMA queues", note, chart};
}

HtmlSection UtilisationSection(const ProfileDeviceSummary& s) {
  json rows = json::array();
  const DeviceSummary& t = s.total;
  for (const EngineStats& e : t.engines) {
    rows.push_back({{"unit", e.lane}, {"kind", "engine"}, {"active_time_percent", 100.0 * t.Utilisation(e)},
                    {"active_time_ns", PicosToNanos(e.busy)}, {"count", e.instructions}});
  }
  for (const DmaQueueStats& q : t.dma_queues) {
    const double pct = t.device_time > 0 ? 100.0 * static_cast<double>(q.busy) / t.device_time : 0.0;
    rows.push_back({{"unit", q.queue}, {"kind", "DMA queue"}, {"active_time_percent", pct},
                    {"active_time_ns", PicosToNanos(q.busy)}, {"count", q.transfers}});
  }
  json chart = {
      {"width", 600},
      {"height", {{"step", 20}}},
      {"data", {{"values", rows}}},
      {"mark", "bar"},
      {"encoding",
       {{"y", {{"field", "unit"}, {"type", "nominal"}, {"sort", nullptr}, {"title", nullptr}}},
        {"x", {{"field", "active_time_percent"}, {"type", "quantitative"}, {"title", "active time (% of device time)"},
               {"scale", {{"domain", {0, 100}}}}}},
        {"color", {{"field", "kind"}, {"type", "nominal"}, {"title", nullptr}}},
        {"tooltip", Tooltip({{"unit", "nominal"}, {"active_time_percent", "quantitative"},
                             {"active_time_ns", "quantitative"}, {"count", "quantitative"}})}}}};
  const std::string note = "<p class=\"note\">Share of the " + Ns(t.device_time) +
                           " ns of device time in which each engine ran an instruction or each DMA queue "
                           "moved data (overlaps counted once; count = instructions or DMA pieces).</p>\n";
  return {"utilisation", "Engine and DMA-queue utilisation", note, chart};
}

HtmlSection RooflineSection(const ProfileDeviceSummary& s) {
  json points = json::array();
  std::vector<std::vector<std::string>> table;
  double peak = 0, bw = 0, lo = 1e300, hi = 0;
  for (const DeviceSummary& e : s.executions) {
    const Roofline& r = e.roofline;
    table.push_back({e.kernel_name, BoundName(r.bound), Ns(e.device_time), Ns(r.compute_floor),
                     Ns(r.memory_floor), Ns(r.overhead),
                     std::isinf(r.arithmetic_intensity) ? "inf" : FormatFixed(r.arithmetic_intensity, 3)});
    peak = std::max(peak, e.PeakFlopsPerSecond());
    bw = std::max(bw, e.PeakHbmBytesPerSecond());
    if (e.flops <= 0 || e.hbm_bytes() <= 0 || e.device_time <= 0) continue;
    const double achieved = static_cast<double>(e.flops) / (PicosToNanos(e.device_time) * 1e-9);
    points.push_back({{"kernel", e.kernel_name}, {"arithmetic_intensity", r.arithmetic_intensity},
                      {"flops_per_s", achieved}, {"verdict", BoundName(r.bound)},
                      {"device_time_ns", PicosToNanos(e.device_time)}});
    lo = std::min(lo, r.arithmetic_intensity);
    hi = std::max(hi, r.arithmetic_intensity);
  }
  std::string html = "<p class=\"note\">Each dot is one execution: its FLOPs per HBM byte against the FLOP/s "
                     "it achieved over its device time, under the roofs min(peak FLOP/s, intensity x peak HBM "
                     "bandwidth). The verdict compares the compute floor, the memory floor and the time no "
                     "engine or DMA queue was active.</p>\n";
  html += HtmlTable({"kernel", "verdict", "device time (ns)", "compute floor (ns)", "memory floor (ns)",
                     "nothing active (ns)", "FLOP/B"},
                    table, {false, false, true, true, true, true, true});
  if (points.empty() || peak <= 0 || bw <= 0) {
    html += "<p class=\"note\">No execution has both FLOPs and HBM traffic, so none can be placed on the "
            "roofline.</p>\n";
    return {"roofline", "Roofline", html, nullptr};
  }
  const double ridge = peak / bw;
  lo = std::min(lo, ridge) / 10.0;
  hi = std::max(hi, ridge) * 10.0;
  json roof = json::array();
  for (double ai : {lo, ridge, hi}) roof.push_back({{"arithmetic_intensity", ai}, {"flops_per_s", std::min(peak, ai * bw)}});
  const json x = {{"field", "arithmetic_intensity"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}},
                  {"title", "arithmetic intensity (FLOP per HBM byte)"}};
  const json y = {{"field", "flops_per_s"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}},
                  {"title", "achieved FLOP/s"}, {"axis", {{"format", "~s"}}}};
  json chart = {
      {"width", 600},
      {"height", 360},
      {"layer",
       {{{"data", {{"values", roof}}}, {"mark", {{"type", "line"}, {"color", "#888"}}},
         {"encoding", {{"x", x}, {"y", y}}}},
        {{"data", {{"values", points}}}, {"mark", {{"type", "point"}, {"filled", true}, {"size", 80}}},
         {"encoding", {{"x", x}, {"y", y}, {"color", {{"field", "verdict"}, {"type", "nominal"}}},
                       {"tooltip", Tooltip({{"kernel", "nominal"}, {"verdict", "nominal"},
                                            {"arithmetic_intensity", "quantitative"},
                                            {"flops_per_s", "quantitative"},
                                            {"device_time_ns", "quantitative"}})}}}}}}};
  return {"roofline", "Roofline", html, chart};
}

HtmlSection TopInstructionsSection(const Recording& rec) {
  struct Top {
    const InstructionSlice* slice;
    std::string kernel;
  };
  std::vector<Top> all;
  for (const RecordedExecution& e : rec.executions)
    if (e.captured)
      for (const InstructionSlice& s : e.exec.instructions) all.push_back({&s, e.exec.kernel_name});
  const size_t n = std::min(all.size(), kTopInstructions);
  std::partial_sort(all.begin(), all.begin() + n, all.end(), [](const Top& a, const Top& b) {
    return a.slice->end - a.slice->start > b.slice->end - b.slice->start;
  });
  std::vector<std::vector<std::string>> table;
  json rows = json::array();
  for (size_t i = 0; i < n; ++i) {
    const InstructionSlice& s = *all[i].slice;
    const std::string label = std::to_string(i + 1) + ". " + s.lane + " " + s.opcode +
                              (Arg(s, "line").empty() ? "" : " (line " + Arg(s, "line") + ")");
    table.push_back({std::to_string(i + 1), all[i].kernel, s.lane, s.opcode, Arg(s, "line"), SourceLine(s.source),
                     Ns(s.end - s.start), Arg(s, "operands")});
    rows.push_back({{"instruction", label}, {"duration_ns", PicosToNanos(s.end - s.start)},
                    {"opcode", s.opcode}, {"operands", Arg(s, "operands")}});
  }
  std::string html = HtmlTable({"#", "kernel", "engine", "opcode", "line", "source", "duration (ns)", "operands"},
                               table, {true, false, false, false, true, false, true, false});
  if (n == 0) return {"top", "Top instructions by time", "<p class=\"note\">No captured instructions.</p>\n", nullptr};
  json chart = {{"width", 600},
                {"height", {{"step", 18}}},
                {"data", {{"values", rows}}},
                {"mark", "bar"},
                {"encoding",
                 {{"y", {{"field", "instruction"}, {"type", "nominal"}, {"sort", nullptr}, {"title", nullptr}}},
                  {"x", {{"field", "duration_ns"}, {"type", "quantitative"}, {"title", "duration (ns)"}}},
                  {"color", {{"field", "opcode"}, {"type", "nominal"}}},
                  {"tooltip", Tooltip({{"instruction", "nominal"}, {"duration_ns", "quantitative"},
                                       {"operands", "nominal"}})}}}};
  return {"top", "Top instructions by time", html, chart};
}

}  // namespace

std::string RunReportHtml(const Recording& rec, const ProfileDeviceSummary& s, const std::string& title) {
  std::string intro = "<p>" + std::to_string(s.executions.size()) + " captured execution(s), " +
                      Ns(s.total.device_time) + " ns of device time. " +
                      HtmlEscape(RooflineExplanation(s.total)) + "</p>\n"
                      "<p class=\"note\">Beside this page: trace.json (open in https://ui.perfetto.dev or the "
                      "Performance panel of Chromium's DevTools), summary.json (docs/output-schema.md), "
                      "instructions.csv.</p>\n";
  return HtmlPage(title, intro,
                  {TimelineSection(rec, s), UtilisationSection(s), RooflineSection(s), TopInstructionsSection(rec),
                   SourceSection(rec, s)});
}

}  // namespace prof
}  // namespace nsim
