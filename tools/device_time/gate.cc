#include "tools/device_time/gate.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"
#include "tools/compare.h"

namespace nsim {
namespace gate {
namespace {

std::string Row(const std::string& name, const std::string& config, const std::string& old_ns,
                const std::string& new_ns, const std::string& change) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-44s %-8s %16s %16s %12s\n", name.c_str(), config.c_str(), old_ns.c_str(),
                new_ns.c_str(), change.c_str());
  return buf;
}

std::string Ns(Picos p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", PicosToNanos(p));
  return buf;
}

}  // namespace

std::map<std::pair<std::string, std::string>, Picos> ReadGoldens(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw SimError("cannot read golden file " + path);
  std::map<std::pair<std::string, std::string>, Picos> goldens;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, config, ps;
    if (!std::getline(fields, name, '\t') || !std::getline(fields, config, '\t') || !std::getline(fields, ps)) {
      throw SimError(path + ":" + std::to_string(n) + ": expected name<TAB>config<TAB>device_time_ps");
    }
    size_t used = 0;
    Picos value = 0;
    try {
      value = std::stoll(ps, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != ps.size() || value <= 0) {
      throw SimError(path + ":" + std::to_string(n) + ": bad device time '" + ps +
                     "' (expected a positive integer of picoseconds: every execution takes at least its launch)");
    }
    if (!goldens.emplace(std::make_pair(name, config), value).second) {
      throw SimError(path + ":" + std::to_string(n) + ": workload '" + name + "' on " + config + " listed twice");
    }
  }
  return goldens;
}

void WriteGoldens(const std::string& path, const std::vector<Measurement>& measured, const std::string& header) {
  std::ofstream out(path);
  if (!out) throw SimError("cannot write golden file " + path);
  out << header;
  for (const Measurement& m : measured) out << m.name << '\t' << m.config << '\t' << m.device_time << '\n';
}

std::vector<Measurement> Measure(const std::vector<Workload>& workloads, bool timing_only) {
  std::vector<Measurement> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const Workload& w : workloads) {
    if (!seen.insert({w.name, w.config}).second) throw SimError("workload '" + w.name + "' on " + w.config + " defined twice");
    out.push_back({w.name, w.config, w.run(w.config, timing_only)});
  }
  return out;
}

Comparison Compare(const std::map<std::pair<std::string, std::string>, Picos>& goldens,
                   const std::vector<Measurement>& measured) {
  Comparison c;
  c.table = Row("workload", "config", "golden (ns)", "now (ns)", "change");
  std::set<std::pair<std::string, std::string>> covered;
  for (const Measurement& m : measured) {
    const auto key = std::make_pair(m.name, m.config);
    covered.insert(key);
    auto it = goldens.find(key);
    if (it == goldens.end()) {
      c.ok = false;
      c.table += Row(m.name, m.config, "(none)", Ns(m.device_time), "NEW");
      continue;
    }
    if (it->second != m.device_time) c.ok = false;
    c.table += Row(m.name, m.config, Ns(it->second), Ns(m.device_time), FormatChange(it->second, m.device_time));
  }
  for (const auto& [key, ps] : goldens) {
    if (covered.count(key)) continue;
    c.ok = false;
    c.table += Row(key.first, key.second, Ns(ps), "(gone)", "REMOVED");
  }
  return c;
}

Workload KernelFileWorkload(const std::string& path, const std::string& config, const std::string& name) {
  return {name.empty() ? path : name, config, [path](const std::string& cfg, bool timing_only) {
            Device device(LoadHardwareConfig(cfg));
            device.set_timing_only(timing_only);
            return device.Execute(LoadKernelFile(path)).device_time;
          }};
}

}  // namespace gate
}  // namespace nsim
