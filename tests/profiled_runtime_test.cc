// The runtime seen through the profiler: executions appear with their engine
// slices when the profiler captures the core, capture costs exactly the
// configured device time, and profiling without capture changes nothing.
#include <gtest/gtest.h>

#include "profiler/profile.h"
#include "runtime/test_util.h"

namespace nsim {
namespace {

using rt::testing::ScaleKernel;

struct ScaleRun {
  Picos device = 0;       // device_end - device_start of the one execution
  size_t slices = 0;      // instruction slices the profiler holds for it
  size_t executions = 0;  // executions the profile recorded
};

ScaleRun RunScale(bool profile, bool capture) {
  rt::Runtime::Get().Reset();
  rt::NeuronCoreDevice& core = rt::Runtime::Get().core(0);
  const uint64_t x = core.Allocate(rt::testing::kScaleTensorBytes);
  const uint64_t out = core.Allocate(rt::testing::kScaleTensorBytes);
  const auto kernel = core.LoadKernel(ScaleKernel());
  ScaleRun r;
  auto execute = [&] {
    const auto h = core.ExecuteAsync(kernel, {{"x", x}, {"out", out}});
    core.Synchronize();
    r.device = h->device_end - h->device_start;
  };
  if (!profile) {
    execute();
    return r;
  }
  prof::ProfileOptions opts;
  opts.experimental_config.modes = {prof::ProfileMode::kRuntime};
  if (capture) opts.experimental_config.modes.push_back(prof::ProfileMode::kDevice);
  prof::Profile p(opts);
  execute();
  p.stop();
  r.executions = p.recording().executions.size();
  if (r.executions == 1) r.slices = p.recording().executions[0].exec.instructions.size();
  return r;
}

TEST(ProfiledRuntime, CaptureCostsTheConfiguredDeviceTime) {
  const ScaleRun plain = RunScale(false, false);
  const ScaleRun runtime_only = RunScale(true, false);
  const ScaleRun captured = RunScale(true, true);
  EXPECT_EQ(runtime_only.device, plain.device);  // profiling without capture is free on the device
  EXPECT_EQ(runtime_only.executions, 1u);
  EXPECT_EQ(runtime_only.slices, 0u);
  // trn2 capture: per_execution + per_record x (3 instructions + 1 DMA piece
  // per dma_copy of [4, 8] fp32 -> 1 engine each, 2 pieces) = 5 records.
  const HardwareConfig& c = rt::Runtime::Get().core(0).config();
  EXPECT_EQ(captured.slices, 3u);
  EXPECT_EQ(captured.device, plain.device + c.capture.per_execution_ps + 5 * c.capture.per_record_ps);
}

}  // namespace
}  // namespace nsim
