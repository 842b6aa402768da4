#include "benchmarks/rmsnorm/study_runner.h"

#include <filesystem>
#include <map>
#include <stdexcept>

#include "backend/factories.h"
#include "profiler/device_summary.h"
#include "profiler/neuron_profiler.h"
#include "profiler/profile.h"
#include "profiler/summary_report.h"
#include "runtime/clock.h"
#include "runtime/runtime.h"

namespace nsim {
namespace study {
namespace {

double Us(Picos p) { return PicosToMicros(p); }

// "op by op" -> "op_by_op": directory names without spaces.
std::string Slug(std::string name) {
  for (char& c : name) if (c == ' ') c = '_';
  return name;
}

bool IsFrameworkOp(const std::string& key) {
  return key.rfind("aten::", 0) == 0 || key.rfind("Torch-Compiled Region", 0) == 0;
}

prof::ProfileOptions StudyProfile(const StudyOptions& o, const std::string& dir) {
  prof::NeuronConfig cfg;
  cfg.modes = {prof::ProfileMode::kRuntime};
  if (o.device_capture) cfg.modes.push_back(prof::ProfileMode::kDevice);
  cfg.capture_enabled_for_nc = "0";
  cfg.correlate_device_time = true;
  cfg.profile_output_dir = dir;
  prof::ProfileOptions opts;
  opts.schedule = prof::MakeSchedule(/*wait=*/2, /*warmup=*/1, /*active=*/1);
  opts.experimental_config = cfg;
  opts.on_trace_ready = prof::NeuronProfiler(cfg);
  return opts;
}

void ReadProfile(const prof::Profile& p, ImplResult* r) {
  const prof::EventList avg = p.key_averages();
  r->table = avg.table("self_privateuse1_time_total", -1);
  for (const prof::EventStats& e : avg.events()) {
    if (!IsFrameworkOp(e.key)) continue;
    r->ops.push_back({e.key, e.count, Us(e.self_cpu_time_total), Us(e.self_device_time_total)});
    r->self_cpu_us += Us(e.self_cpu_time_total);
  }
  const prof::Recording& rec = p.recording();
  r->dispatches = static_cast<int64_t>(rec.executions.size());
  r->device_us = Us(avg.self_device_time_total());
  for (const auto& e : rec.executions) r->hbm_bytes += static_cast<double>(e.exec.hbm_read_bytes + e.exec.hbm_write_bytes);
  const prof::ProfileDeviceSummary summary = prof::SummarizeRecording(rec);
  r->device_summary = prof::SummaryText(summary);
  r->device_total = summary.total;
  r->warnings = p.warnings();
}

}  // namespace

namespace {

// randn of the given shape, dtype and seed, generated once per process for
// the last shape asked for: the three implementations and the CPU reference
// read the same input (8192x8192 takes seconds of Box-Muller to generate).
// The CPU tensor is only read (moved to the device or fed to the reference).
at::Tensor CachedRandn(const std::vector<int64_t>& shape, at::ScalarType dtype, uint64_t seed) {
  struct Entry {
    std::vector<int64_t> shape;
    at::ScalarType dtype;
    at::Tensor tensor;
  };
  static std::map<uint64_t, Entry> cache;  // by seed: 0 the input, 1 the weight
  Entry& e = cache[seed];
  if (!e.tensor.defined() || e.shape != shape || e.dtype != dtype) {
    e = {shape, dtype, at::randn(shape, seed, at::TensorOptions().dtype(dtype))};
  }
  return e.tensor;
}

}  // namespace

at::Tensor StudyInput(const StudyOptions& o) { return CachedRandn(o.shape, o.dtype, /*seed=*/0); }
at::Tensor StudyWeight(const StudyOptions& o) { return CachedRandn({o.shape.back()}, o.dtype, /*seed=*/1); }

ImplResult RunImplementation(const std::string& name, const RmsNormFn& fn, const StudyOptions& o) {
  ImplResult r;
  r.name = name;
  r.slug = Slug(name);
  r.out_dir = o.out_dir + "/" + r.slug;
  std::filesystem::create_directories(r.out_dir);
  const at::Device neuron("neuron:0");
  // A timing-only run computes no values, so it does not generate them
  // either: zeros time the same as the study's random input.
  const at::Tensor x = (o.timing_only ? at::zeros(o.shape, at::TensorOptions().dtype(o.dtype)) : StudyInput(o)).to(neuron);
  const at::Tensor w = StudyWeight(o).to(neuron);
  rt::NeuronCoreDevice& core = rt::Runtime::Get().core(0);
  core.Synchronize();
  at::Tensor y;
  {
    prof::Profile p(StudyProfile(o, r.out_dir));
    for (int i = 0; i < o.steps; ++i) {
      y = fn(x, w);
      core.Synchronize();  // torch.neuron.synchronize()
      p.step();
      if (o.on_step && !o.on_step(name, i + 1, rt::SimClock::Get().now())) {
        r.interrupted = true;
        break;
      }
    }
    p.stop();
    ReadProfile(p, &r);
  }
  if (r.dispatches == 0 && !r.interrupted) {
    throw std::runtime_error(name + ": the profiler recorded no device execution in " + std::to_string(o.steps) +
                             " steps (schedule wait=2, warmup=1, active=1 records every 4th step)");
  }
  if (!o.timing_only) r.output = y.cpu().to(at::ScalarType::Float);
  return r;
}

}  // namespace study
}  // namespace nsim
