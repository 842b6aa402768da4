#include "tools/compare.h"

#include <cstdio>

#include "profiler/summary_report.h"

namespace nsim {

std::string FormatChange(Picos o, Picos n) {
  if (o == n) return "=";
  if (o == 0) return "new";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f%%", 100.0 * static_cast<double>(n - o) / static_cast<double>(o));
  return buf;
}

std::string CompareTable(const std::string& old_name, const std::string& new_name, const std::vector<CompareRow>& rows) {
  char line[256];
  std::snprintf(line, sizeof line, "%-24s %16s %16s %10s\n", "", (old_name + " (us)").c_str(),
                (new_name + " (us)").c_str(), "change");
  std::string out = line;
  for (const CompareRow& r : rows) {
    std::snprintf(line, sizeof line, "%-24s %16.3f %16.3f %10s\n", r.what.c_str(), PicosToMicros(r.old_value),
                  PicosToMicros(r.new_value), FormatChange(r.old_value, r.new_value).c_str());
    out += line;
  }
  return out;
}

nlohmann::json CompareJson(const std::string& old_name, const std::string& new_name,
                           const std::vector<CompareRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const CompareRow& r : rows) {
    nlohmann::json row = {{"what", r.what}, {"old_ns", PicosToNanos(r.old_value)},
                          {"new_ns", PicosToNanos(r.new_value)}};
    row["change_percent"] = r.old_value == 0 ? nlohmann::json(nullptr)
                                             : nlohmann::json(100.0 * (r.new_value - r.old_value) / r.old_value);
    out.push_back(row);
  }
  return {{"schema", "nsim-compare"}, {"schema_version", prof::kSchemaVersion}, {"old", old_name},
          {"new", new_name}, {"total_time_ns", rows.empty() ? 0.0 : PicosToNanos(rows.front().new_value)},
          {"rows", out}};
}

}  // namespace nsim
