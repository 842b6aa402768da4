#include "benchmarks/rmsnorm/report.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <sstream>

#include "backend/ops.h"
#include "benchmarks/rmsnorm/implementations.h"
#include "benchmarks/rmsnorm/study_figures.h"

namespace nsim {
namespace study {
namespace {

const MeasuredImpl* Measured(const std::string& name) {
  for (const MeasuredImpl& m : Implementations())
    if (m.name == name) return &m;
  return nullptr;
}

double ErrPct(double model, double measured) { return 100.0 * (model - measured) / measured; }

// One bf16 ulp at the output's magnitude is 2^-7 relative; allow a few for
// the different (but each correctly rounded) operation orders.
double Tolerance(const StudyOptions& o, double scale) {
  const double rel = o.dtype == at::ScalarType::Float ? 1e-5 : o.dtype == at::ScalarType::Half ? 4e-3 : 3.2e-2;
  return rel * std::max(1.0, scale);
}

std::string ShapeText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string Line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Line(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

bool IsStudyConfiguration(const StudyOptions& o) {
  return o.shape == std::vector<int64_t>{4, 512} && o.dtype == at::ScalarType::BFloat16 && o.device_capture && o.lnc == 1;
}

std::string SideBySide(const std::vector<ImplResult>& results, const StudyOptions& o) {
  std::ostringstream os;
  const double base = results.front().device_us;
  const bool compare = IsStudyConfiguration(o);
  os << "== Side by side" << (compare ? " (model vs the measured study; error in %)" : "") << " ==\n";
  os << Line("%-10s %10s %14s %14s %12s %14s\n", "", "dispatches", "Self NEURON us", "Self CPU us",
             "NEURON ratio", "HBM bytes");
  for (const ImplResult& r : results) {
    os << Line("%-10s %10lld %14.1f %14.1f %12.2f %14.0f\n", r.name.c_str(), static_cast<long long>(r.dispatches),
               r.device_us, r.self_cpu_us, base / r.device_us, r.hbm_bytes);
    const MeasuredImpl* m = Measured(r.name);
    if (!compare || m == nullptr) continue;
    const double measured_ratio = Implementations().front().self_neuron_us / m->self_neuron_us;
    os << Line("%-10s %10d %14.1f %14.1f %12.2f\n", "  study", m->dispatches, m->self_neuron_us, m->self_cpu_us,
               measured_ratio);
    os << Line("%-10s %10s %13.1f%% %13.1f%% %12.2f\n", "  error", "", ErrPct(r.device_us, m->self_neuron_us),
               ErrPct(r.self_cpu_us, m->self_cpu_us), base / r.device_us - measured_ratio);
  }
  if (compare) {
    os << "\nop-by-op rows (Self NEURON us, model vs study):\n";
    for (const MeasuredOp& m : OpByOpRows()) {
      for (const OpRow& row : results.front().ops) {
        if (row.name != m.name) continue;
        os << Line("  %-12s calls %lld/%d  NEURON %8.1f vs %8.1f (%+.1f%%)  CPU %6.1f vs %6.1f (%+.1f%%)\n",
                   m.name.c_str(), static_cast<long long>(row.calls), m.calls, row.self_neuron_us, m.self_neuron_us,
                   ErrPct(row.self_neuron_us, m.self_neuron_us), row.self_cpu_us, m.self_cpu_us,
                   ErrPct(row.self_cpu_us, m.self_cpu_us));
      }
    }
  } else {
    os << "(the measured study is 4x512 bf16 with device capture; no comparison for this configuration)\n";
  }
  return os.str();
}

}  // namespace

Agreement CheckAgreement(const std::vector<ImplResult>& results, const StudyOptions& o) {
  if (o.timing_only) {
    Agreement skipped;
    skipped.checked = false;
    return skipped;
  }
  const at::Tensor ref = RmsNormOpByOp(StudyInput(o), StudyWeight(o), o.eps).to(at::ScalarType::Float);
  const float* want = ref.data_ptr<float>();
  double scale = 0;
  for (int64_t i = 0; i < ref.numel(); ++i) scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  Agreement a;
  a.tolerance = Tolerance(o, scale);
  for (const ImplResult& r : results) {
    const at::Tensor got = r.output.contiguous();
    const float* g = got.data_ptr<float>();
    double worst = 0;
    for (int64_t i = 0; i < ref.numel(); ++i) worst = std::max(worst, std::fabs(static_cast<double>(g[i]) - want[i]));
    a.max_abs_diff.emplace_back(r.name, worst);
    a.ok = a.ok && worst <= a.tolerance && got.sizes() == ref.sizes();
  }
  return a;
}

std::string ReportText(const std::vector<ImplResult>& results, const Agreement& agreement, const StudyOptions& o,
                       const HardwareConfig& config, double wall_seconds) {
  std::ostringstream os;
  os << "RMSNorm " << ShapeText(o.shape) << " " << at::TorchDtypeName(o.dtype) << " on " << config.name << " ("
     << config.generation << ")" << (o.lnc > 1 ? ", LNC " + std::to_string(o.lnc) : std::string()) << ", " << o.steps << " steps, schedule wait=2 warmup=1 active=1, device capture "
     << (o.device_capture ? "on" : "off") << "\nprofiles and traces under " << o.out_dir
     << "/{op_by_op,rms_norm,compiled}/ (report.html in a browser; trace.json in https://ui.perfetto.dev or the DevTools Performance panel)\n\n";
  for (const ImplResult& r : results) {
    os << "== " << r.name << " ==\n" << r.table << "\n";
    for (const std::string& w : r.warnings) os << "warning: " << w << "\n";
    os << "device breakdown:\n" << r.device_summary << "\n";
  }
  os << SideBySide(results, o) << "\n";
  if (!agreement.checked) {
    os << "== Numerical agreement: not checked (--timing-only computes no values) ==\n";
  } else {
    os << "== Numerical agreement with the CPU reference (tolerance " << agreement.tolerance << ") ==\n";
    for (const auto& [name, diff] : agreement.max_abs_diff) os << Line("  %-10s max |diff| %.3g\n", name.c_str(), diff);
    os << (agreement.ok ? "  all agree\n" : "  MISMATCH\n");
  }
  os << Line("\nsimulator wall time: %.2f s\n", wall_seconds);
  return os.str();
}

// Schema docs/output-schema.md, "study": times in ns as numbers.
nlohmann::json ReportJson(const std::vector<ImplResult>& results, const Agreement& agreement,
                          const StudyOptions& o, const HardwareConfig& config, double wall_seconds) {
  auto ns = [](double us) { return us * 1000.0; };
  nlohmann::json impls = nlohmann::json::object();
  double total_ns = 0;
  for (const ImplResult& r : results) {
    nlohmann::json ops = nlohmann::json::array();
    for (const OpRow& op : r.ops) {
      ops.push_back({{"name", op.name}, {"calls", op.calls}, {"self_cpu_ns", ns(op.self_cpu_us)},
                     {"self_neuron_ns", ns(op.self_neuron_us)}});
    }
    nlohmann::json j = {{"name", r.name},         {"dispatches", r.dispatches}, {"device_time_ns", ns(r.device_us)},
                        {"self_cpu_ns", ns(r.self_cpu_us)}, {"hbm_bytes", r.hbm_bytes},
                        {"ops", ops},             {"output_dir", r.out_dir}};
    total_ns += ns(r.device_us);
    if (const MeasuredImpl* m = Measured(r.name); m != nullptr && IsStudyConfiguration(o)) {
      j["study"] = {{"dispatches", m->dispatches}, {"device_time_ns", ns(m->self_neuron_us)},
                    {"self_cpu_ns", ns(m->self_cpu_us)}};
      j["error_percent"] = {{"device_time", ErrPct(r.device_us, m->self_neuron_us)},
                            {"self_cpu", ErrPct(r.self_cpu_us, m->self_cpu_us)}};
    }
    impls[r.slug] = j;
  }
  nlohmann::json agree = nlohmann::json::object();
  for (size_t i = 0; i < agreement.max_abs_diff.size() && i < results.size(); ++i) {
    agree[results[i].slug] = agreement.max_abs_diff[i].second;
  }
  return {{"schema", "nsim-study"},
          {"schema_version", 1},
          {"tool", "rmsnorm"},
          {"total_time_ns", total_ns},
          {"config", {{"name", config.name}, {"generation", config.generation}}},
          {"shape", o.shape},
          {"dtype", at::TorchDtypeName(o.dtype)},
          {"steps", o.steps},
          {"lnc", o.lnc},
          {"device_capture", o.device_capture},
          {"implementations", impls},
          {"agreement",
           {{"ok", agreement.ok}, {"checked", agreement.checked}, {"tolerance", agreement.tolerance},
            {"max_abs_diff", agree}}},
          {"wall_seconds", wall_seconds}};
}

}  // namespace study
}  // namespace nsim
