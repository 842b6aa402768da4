// The study's third path: torch.compile(fullgraph=True) on the op-by-op
// RMSNorm ([4, 512] bfloat16 on trn2), profiled like the study (DEVICE and
// RUNTIME modes on NC 0, correlated device time, synchronised). The
// compiled region is one "Torch-Compiled Region: 0/0" row with one device
// execution attributed to it and the calibrated Self CPU; its device and
// host times are logged next to the eager op-by-op and rms_norm paths.
#include <gtest/gtest.h>

#include <cstdio>

#include "backend/compile/compile.h"
#include "backend/compile/host_costs.h"
#include "backend/compile/neuron_test_util.h"
#include "backend/factories.h"
#include "profiler/profile.h"
#include "runtime/runtime.h"

namespace nsim {
namespace {

using at::Tensor;

struct Measured {
  int64_t executions = 0;
  double self_cpu_us = 0;     // framework rows: ATen ops and compiled regions
  double self_neuron_us = 0;  // the table's Self NEURON total
  double device_us = 0;       // the executions' device time without capture
  const prof::EventStats* region = nullptr;
  prof::EventList table;
};

prof::ProfileOptions StudyProfile() {
  prof::NeuronConfig cfg;
  cfg.modes = {prof::ProfileMode::kDevice, prof::ProfileMode::kRuntime};
  cfg.capture_enabled_for_nc = "0";
  cfg.correlate_device_time = true;
  prof::ProfileOptions opts;
  opts.experimental_config = cfg;
  return opts;
}

bool IsFrameworkRow(const std::string& key) {
  return key.rfind("aten::", 0) == 0 || key.rfind("Torch-Compiled Region", 0) == 0;
}

// One warmed-up, synchronised call under the profiler, and one without it.
template <class F>
Measured Measure(F&& fn) {
  rt::NeuronCoreDevice& core = rt::Runtime::Get().core(0);
  fn();
  core.Synchronize();
  Measured m;
  const size_t from = testing::RecordCount();
  fn();
  core.Synchronize();
  m.device_us = PicosToMicros(testing::ActivitySince(from).device_time);
  {
    prof::Profile p(StudyProfile());
    fn();
    core.Synchronize();
    p.stop();
    m.table = p.key_averages();
    m.executions = static_cast<int64_t>(p.recording().executions.size());
  }
  for (const prof::EventStats& e : m.table.events()) {
    if (IsFrameworkRow(e.key)) m.self_cpu_us += PicosToMicros(e.self_cpu_time_total);
  }
  m.self_neuron_us = PicosToMicros(m.table.self_device_time_total());
  m.region = m.table.Find("Torch-Compiled Region: 0/0");
  return m;
}

TEST(RmsNormStudy, CompiledRegionSideBySide) {
  rt::Runtime::Get().Reset();  // trn2, the study's hardware
  compiler::ResetFrameIds();
  const at::Device neuron("neuron:0");
  const Tensor x = at::randn({4, 512}, 0, at::kBFloat16).to(neuron);
  const Tensor w = at::randn({512}, 1, at::kBFloat16).to(neuron);
  auto compiled = compile(&testing::RmsNorm, CompileOptions{.fullgraph = true});

  const Measured c = Measure([&] { compiled(x, w); });
  const Measured e = Measure([&] { testing::RmsNorm(x, w); });
  const Measured f = Measure([&] { at::rms_norm(x, {512}, w, 1e-6); });

  ASSERT_NE(c.region, nullptr) << c.table.table();
  EXPECT_EQ(c.region->count, 1);
  EXPECT_EQ(c.executions, 1);
  EXPECT_GT(c.region->self_device_time_total, 0);  // the execution is attributed to the region
  const HardwareConfig& hw = rt::Runtime::Get().core(0).config();
  const compiler::HostCosts hc = compiler::HostCosts::For(neuron);
  // nrta_execute_schedule (host.runtime_submit) is a child row of its own.
  const Picos want = hc.graph_lookup + 2 * hc.guard_eval + hw.host.alloc_ps;
  EXPECT_EQ(c.region->self_cpu_time_total, want);
  EXPECT_NEAR(PicosToMicros(c.region->self_cpu_time_total), 98.4, 0.5);  // seed-study, compiled Self CPU
  EXPECT_LT(c.device_us, e.device_us);
  EXPECT_LT(c.self_neuron_us, e.self_neuron_us);

  char line[512];
  std::snprintf(line, sizeof line,
                "RMSNorm [4, 512] bf16 trn2 | compiled: %lld exec, device %.2f us (profiled Self NEURON %.1f us), "
                "Self CPU %.1f us | eager op by op: %lld exec, device %.2f us (%.1f us), Self CPU %.1f us | "
                "rms_norm: %lld exec, device %.2f us (%.1f us), Self CPU %.1f us",
                static_cast<long long>(c.executions), c.device_us, c.self_neuron_us, c.self_cpu_us,
                static_cast<long long>(e.executions), e.device_us, e.self_neuron_us, e.self_cpu_us,
                static_cast<long long>(f.executions), f.device_us, f.self_neuron_us, f.self_cpu_us);
  std::cout << line << "\n" << c.table.table("self_privateuse1_time_total") << "\n";
  RecordProperty("rmsnorm_side_by_side", line);
}

}  // namespace
}  // namespace nsim
