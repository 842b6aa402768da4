#include "validation/run.h"

#include <algorithm>
#include <cmath>

#include "sim/base/error.h"
#include "sim/model/timing_run.h"

namespace nsim {
namespace validation {
namespace {

const InstructionRecord& Record(const ExecutionResult& r, EngineId e, int index) {
  for (const InstructionRecord& rec : r.instructions)
    if (rec.engine == e && rec.index == index) return rec;
  throw SimError("validation: no record of " + std::string(EngineName(e)) + " instruction " + std::to_string(index));
}

double DurationNs(const ExecutionResult& r, EngineId e, int index) {
  const InstructionRecord& rec = Record(r, e, index);
  return PicosToNanos(rec.end - rec.start);
}

}  // namespace

double ModelValueNs(const Case& c, const ExecutionResult& r, const HardwareConfig& config) {
  switch (c.metric) {
    case Metric::kWindow:
      return PicosToNanos(WindowTime(r, config, c.method));
    case Metric::kDuration:
      return DurationNs(r, c.engine, c.index);
    case Metric::kMeanDuration: {
      double sum = 0;
      int n = 0;
      for (const InstructionRecord& rec : r.instructions) {
        if (rec.engine != c.engine) continue;
        sum += PicosToNanos(rec.end - rec.start);
        ++n;
      }
      if (n == 0) throw SimError("validation case '" + c.name + "': no instructions on " + EngineName(c.engine));
      return sum / n;
    }
    case Metric::kInterval:
      return PicosToNanos(Record(r, c.engine, c.index + 1).start - Record(r, c.engine, c.index).start);
    case Metric::kDurationDifference:
      return DurationNs(r, c.engine, c.index) - DurationNs(r, c.engine, c.index2);
    case Metric::kDmaPieceDuration: {
      Picos longest = -1;
      for (const DmaRecord& d : r.dma)
        if (d.trigger_engine == c.engine && d.index == c.index) longest = std::max(longest, d.end - d.start);
      if (longest < 0) throw SimError("validation case '" + c.name + "': no DMA record");
      return PicosToNanos(longest);
    }
  }
  return 0;
}

SuiteRunner::SuiteRunner(std::vector<Case> cases) : cases_(std::move(cases)) {
  kernels_.reserve(cases_.size());
  for (const Case& c : cases_) kernels_.push_back(c.build());
}

std::vector<CaseResult> SuiteRunner::Run(const HardwareConfig& config) const {
  std::vector<CaseResult> out;
  for (size_t i = 0; i < cases_.size(); ++i) {
    const LoadedKernel loaded(kernels_[i], config);
    const ExecutionResult r = ExecuteTimingOnly(config, loaded);
    CaseResult cr;
    cr.c = &cases_[i];
    cr.model_ns = ModelValueNs(cases_[i], r, config);
    cr.error = (cr.model_ns - cases_[i].measured_ns) / cases_[i].measured_ns;
    out.push_back(cr);
  }
  return out;
}

SuiteStats Summarise(const std::vector<CaseResult>& results) {
  SuiteStats s;
  std::vector<double> abs;
  for (const CaseResult& r : results) {
    abs.push_back(std::fabs(r.error));
    if (s.worst_case.empty() || abs.back() > s.worst_abs_error) {
      s.worst_abs_error = abs.back();
      s.worst_case = r.c->name;
    }
  }
  if (abs.empty()) return s;
  std::sort(abs.begin(), abs.end());
  const size_t n = abs.size();
  s.median_abs_error = n % 2 ? abs[n / 2] : (abs[n / 2 - 1] + abs[n / 2]) / 2;
  return s;
}

}  // namespace validation
}  // namespace nsim
