#include "benchmarks/rmsnorm/study_compare.h"

#include <cmath>

#include "tools/compare.h"

namespace nsim {
namespace study {
namespace {

Picos Ps(double us) { return static_cast<Picos>(std::llround(us * 1e6)); }

std::vector<CompareRow> Rows(const ImplResult& a, const ImplResult& b) {
  std::vector<CompareRow> rows = {{"Self NEURON", Ps(a.device_us), Ps(b.device_us)},
                                  {"Self CPU", Ps(a.self_cpu_us), Ps(b.self_cpu_us)}};
  for (const prof::EngineStats& e : a.device_total.engines) {
    Picos other = 0;
    for (const prof::EngineStats& f : b.device_total.engines)
      if (f.lane == e.lane) other = f.busy;
    rows.push_back({e.lane + " busy", e.busy, other});
  }
  return rows;
}

}  // namespace

StudyComparison CompareStudies(const std::vector<ImplResult>& old_results, const std::vector<ImplResult>& new_results,
                               const std::string& old_config, const std::string& new_config, const StudyOptions& o) {
  StudyComparison c;
  c.text = "RMSNorm study: " + old_config + " (old) vs " + new_config + " (new), device capture " +
           (o.device_capture ? "on (per-engine rows from the captured step)" : "off (--device-capture adds per-engine rows)") +
           "\n";
  nlohmann::json impls = nlohmann::json::object();
  for (size_t i = 0; i < old_results.size() && i < new_results.size(); ++i) {
    const std::vector<CompareRow> rows = Rows(old_results[i], new_results[i]);
    c.text += "\n== " + old_results[i].name + " ==\n" + CompareTable(old_config, new_config, rows);
    impls[old_results[i].slug] = CompareJson(old_config, new_config, rows);
  }
  c.json = {{"schema", "nsim-study-compare"}, {"schema_version", 1}, {"old", old_config}, {"new", new_config},
            {"device_capture", o.device_capture}, {"implementations", impls}};
  return c;
}

}  // namespace study
}  // namespace nsim
