#include "validation/report.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "sim/base/error.h"

namespace nsim {
namespace validation {

std::string FormatNs(double ns) {
  char buf[64];
  const double a = std::fabs(ns);
  if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  else if (a >= 1e3) std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%.1f ns", ns);
  return buf;
}

std::string FormatError(double error) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", error * 100);
  return buf;
}

namespace {

std::vector<CaseResult> Rows(const FrontendRows& frontend) {
  std::vector<CaseResult> out;
  for (const auto& [name, r] : frontend) out.push_back(r);
  return out;
}

}  // namespace

std::string ReportTable(const HardwareConfig& config, const std::vector<CaseResult>& results,
                        const FrontendRows* frontend) {
  std::ostringstream os;
  char line[512];
  std::snprintf(line, sizeof line, "%-32s %-7s %-16s %12s %12s %9s", "case", "config", "method", "measured", "model",
                "error");
  os << line << (frontend ? "  frontend (NKI)    error\n" : "\n");
  for (const CaseResult& r : results) {
    const std::string method = r.c->metric == Metric::kWindow ? TimingMethodName(r.c->method) : "instruction";
    std::snprintf(line, sizeof line, "%-32s %-7s %-16s %12s %12s %9s", r.c->name.c_str(), config.name.c_str(),
                  method.c_str(), FormatNs(r.c->measured_ns).c_str(), FormatNs(r.model_ns).c_str(),
                  FormatError(r.error).c_str());
    os << line;
    if (frontend) {
      const auto f = frontend->find(r.c->name);
      if (f == frontend->end()) std::snprintf(line, sizeof line, "  %14s %9s", "-", "-");
      else std::snprintf(line, sizeof line, "  %14s %9s", FormatNs(f->second.model_ns).c_str(),
                         FormatError(f->second.error).c_str());
      os << line;
    }
    os << "\n";
  }
  const SuiteStats s = Summarise(results);
  std::snprintf(line, sizeof line, "hand-built: median |error| %.1f %%, worst |error| %.1f %% (%s), %zu cases\n",
                s.median_abs_error * 100, s.worst_abs_error * 100, s.worst_case.c_str(), results.size());
  os << line;
  if (frontend && !frontend->empty()) {
    const SuiteStats f = Summarise(Rows(*frontend));
    std::snprintf(line, sizeof line, "frontend:   median |error| %.1f %%, worst |error| %.1f %% (%s), %zu cases\n",
                  f.median_abs_error * 100, f.worst_abs_error * 100, f.worst_case.c_str(), frontend->size());
    os << line;
  }
  return os.str();
}

nlohmann::json ReportJson(const HardwareConfig& config, const std::vector<CaseResult>& results,
                          const FrontendRows* frontend) {
  nlohmann::json j;
  j["config"] = config.name;
  j["cases"] = nlohmann::json::array();
  for (const CaseResult& r : results) {
    nlohmann::json c = {{"case", r.c->name},
                        {"group", r.c->group},
                        {"method", r.c->metric == Metric::kWindow ? TimingMethodName(r.c->method) : "instruction"},
                        {"method_text", r.c->method_text},
                        {"structure", r.c->structure},
                        {"source", r.c->source},
                        {"note", r.c->note},
                        {"measured_ns", r.c->measured_ns},
                        {"model_ns", r.model_ns},
                        {"error", r.error}};
    if (frontend) {
      const auto f = frontend->find(r.c->name);
      c["frontend_ns"] = f == frontend->end() ? nlohmann::json() : nlohmann::json(f->second.model_ns);
      c["frontend_error"] = f == frontend->end() ? nlohmann::json() : nlohmann::json(f->second.error);
    }
    j["cases"].push_back(c);
  }
  const SuiteStats s = Summarise(results);
  j["median_abs_error"] = s.median_abs_error;
  j["worst_abs_error"] = s.worst_abs_error;
  j["worst_case"] = s.worst_case;
  if (frontend && !frontend->empty()) {
    const SuiteStats f = Summarise(Rows(*frontend));
    j["frontend_median_abs_error"] = f.median_abs_error;
    j["frontend_worst_abs_error"] = f.worst_abs_error;
    j["frontend_worst_case"] = f.worst_case;
  }
  return j;
}

std::vector<Case> SelectCases(std::vector<Case> cases, const std::string& only) {
  if (only.empty()) return cases;
  std::set<std::string> want;
  std::stringstream ss(only);
  for (std::string name; std::getline(ss, name, ',');) want.insert(name);
  std::vector<Case> out;
  for (Case& c : cases) {
    if (want.erase(c.name)) out.push_back(std::move(c));
  }
  if (!want.empty()) throw SimError("no case named '" + *want.begin() + "' in the suite");
  return out;
}

}  // namespace validation
}  // namespace nsim
