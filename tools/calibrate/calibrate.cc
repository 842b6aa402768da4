#include "tools/calibrate/calibrate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>

#include "sim/base/error.h"
#include "sim/config/params.h"

namespace nsim {
namespace calibrate {
namespace {

const ParamSpec& NumericParam(const std::string& key) {
  const ParamSpec* spec = FindParam(key);
  if (spec == nullptr) throw SimError("calibrate: unknown config key '" + key + "'");
  if (spec->kind == UnitKind::kText) throw SimError("calibrate: key '" + key + "' is not numeric");
  return *spec;
}

// Search range of one key on a log scale: within its limits, and within a
// factor 100 of its start value (a fit that wants more is a model problem).
void Bounds(const ParamSpec& spec, double start, double* lo, double* hi) {
  const double base = start > 0 ? start : 1.0;
  *lo = std::max(spec.limits.min, base / 100);
  if (spec.limits.min_exclusive && *lo <= spec.limits.min) *lo = std::nextafter(spec.limits.min, INFINITY);
  *lo = std::max(*lo, 1e-9);
  *hi = std::min(spec.limits.max, base * 100);
}

}  // namespace

double GetValue(const HardwareConfig& c, const std::string& key) {
  HardwareConfig copy = c;
  const FieldRef f = NumericParam(key).field(copy);
  if (auto* d = std::get_if<double*>(&f)) return **d;
  return static_cast<double>(*std::get<int64_t*>(f));
}

HardwareConfig WithValues(const HardwareConfig& c, const std::vector<std::string>& keys,
                          const std::vector<double>& values) {
  HardwareConfig out = c;
  for (size_t i = 0; i < keys.size(); ++i) {
    const ParamSpec& spec = NumericParam(keys[i]);
    const double v = std::clamp(values[i], spec.limits.min, spec.limits.max);
    const FieldRef f = spec.field(out);
    if (auto* d = std::get_if<double*>(&f)) **d = v;
    else *std::get<int64_t*>(f) = static_cast<int64_t>(std::llround(v));
    out.origin[keys[i]] = "calibrated";
  }
  return out;
}

double LogCost(const std::vector<validation::CaseResult>& results) {
  double cost = 0;
  for (const auto& r : results) {
    const double e = std::log(std::max(r.model_ns, 1e-9) / r.c->measured_ns);
    cost += e * e;
  }
  return cost;
}

FitResult Fit(const validation::SuiteRunner& suite, const HardwareConfig& base, const std::vector<std::string>& keys,
              int max_evaluations, const std::function<void(const std::vector<double>&, double)>& progress) {
  const size_t n = keys.size();
  if (n == 0) throw SimError("calibrate: no free parameters (--free a,b,...)");
  FitResult fit;
  fit.keys = keys;
  std::vector<double> lo(n), hi(n);
  for (size_t i = 0; i < n; ++i) {
    fit.before.push_back(GetValue(base, keys[i]));
    Bounds(NumericParam(keys[i]), fit.before[i], &lo[i], &hi[i]);
  }
  // x: log of each value, clamped into its bounds.
  auto values_of = [&](const std::vector<double>& x) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = std::exp(std::clamp(x[i], std::log(lo[i]), std::log(hi[i])));
    return v;
  };
  auto cost_of = [&](const std::vector<double>& x) {
    const std::vector<double> v = values_of(x);
    const double c = LogCost(suite.Run(WithValues(base, keys, v)));
    ++fit.evaluations;
    if (progress) progress(v, c);
    return c;
  };
  // Nelder-Mead on the log values; the initial simplex steps each value by x1.3.
  std::vector<std::vector<double>> simplex(n + 1, std::vector<double>(n));
  for (size_t i = 0; i < n; ++i) simplex[0][i] = std::log(std::clamp(fit.before[i] > 0 ? fit.before[i] : lo[i], lo[i], hi[i]));
  for (size_t j = 1; j <= n; ++j) {
    simplex[j] = simplex[0];
    simplex[j][j - 1] += std::log(1.3);
  }
  std::vector<double> f(n + 1);
  for (size_t j = 0; j <= n; ++j) f[j] = cost_of(simplex[j]);
  fit.cost_before = f[0];
  while (fit.evaluations < max_evaluations) {
    std::vector<size_t> order(n + 1);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return f[a] < f[b]; });
    const size_t best = order.front(), worst = order.back(), second = order[n - 1];
    if (f[worst] - f[best] < 1e-7 * (1 + f[best])) break;
    std::vector<double> centre(n, 0);
    for (size_t j : order)
      if (j != worst)
        for (size_t i = 0; i < n; ++i) centre[i] += simplex[j][i] / n;
    auto along = [&](double t) {
      std::vector<double> x(n);
      for (size_t i = 0; i < n; ++i) x[i] = centre[i] + t * (simplex[worst][i] - centre[i]);
      return x;
    };
    const std::vector<double> xr = along(-1.0);
    const double fr = cost_of(xr);
    if (fr < f[best]) {
      const std::vector<double> xe = along(-2.0);
      const double fe = cost_of(xe);
      if (fe < fr) { simplex[worst] = xe; f[worst] = fe; }
      else { simplex[worst] = xr; f[worst] = fr; }
    } else if (fr < f[second]) {
      simplex[worst] = xr;
      f[worst] = fr;
    } else {
      const std::vector<double> xc = along(fr < f[worst] ? -0.5 : 0.5);
      const double fc = cost_of(xc);
      if (fc < std::min(fr, f[worst])) {
        simplex[worst] = xc;
        f[worst] = fc;
      } else {  // shrink towards the best
        for (size_t j = 0; j <= n; ++j) {
          if (j == best) continue;
          for (size_t i = 0; i < n; ++i) simplex[j][i] = simplex[best][i] + 0.5 * (simplex[j][i] - simplex[best][i]);
          f[j] = cost_of(simplex[j]);
        }
      }
    }
  }
  const size_t best = static_cast<size_t>(std::min_element(f.begin(), f.end()) - f.begin());
  fit.after = values_of(simplex[best]);
  // Report the value the config will hold (integral keys are rounded).
  const HardwareConfig fitted = WithValues(base, keys, fit.after);
  for (size_t i = 0; i < n; ++i) fit.after[i] = GetValue(fitted, keys[i]);
  fit.cost_after = f[best];
  return fit;
}

std::string CalibratedYaml(const std::string& base_ref, const std::string& suite, const std::string& date,
                           const FitResult& fit) {
  std::ostringstream os;
  os << "# Calibrated by tools/calibrate against the validation suite '" << suite << "' on " << date << ".\n"
     << "# Sum of squared log errors: " << fit.cost_before << " before, " << fit.cost_after << " after ("
     << fit.evaluations << " evaluations). Every other key comes from '" << base_ref << "'.\n"
     << "inherits: " << base_ref << "\n";
  std::map<std::string, std::vector<size_t>> groups;  // section -> key indices
  for (size_t i = 0; i < fit.keys.size(); ++i) groups[fit.keys[i].substr(0, fit.keys[i].find('.'))].push_back(i);
  for (const auto& [group, idx] : groups) {
    os << "\n" << group << ":\n";
    for (size_t i : idx) {
      const ParamSpec& spec = NumericParam(fit.keys[i]);
      const std::string leaf = fit.keys[i].substr(fit.keys[i].find('.') + 1);
      os << "  " << leaf << ": " << FormatQuantity(spec.kind, fit.after[i]) << "   # fitted by tools/calibrate to "
         << suite << " on " << date << " (was " << FormatQuantity(spec.kind, fit.before[i]) << ")\n";
    }
  }
  return os.str();
}

}  // namespace calibrate
}  // namespace nsim
