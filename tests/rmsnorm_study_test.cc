// The RMSNorm study end to end (what `bazel run //benchmarks:rmsnorm` runs):
// dispatch counts, the two calibrated device figures, the op-by-op/fused ratio
// and agreement of the three outputs. The other figures' errors are reported
// by the program, not asserted: they are what the model predicts.
#include <gtest/gtest.h>

#include "backend/compile/compile.h"
#include "backend/compile/host_costs.h"
#include "benchmarks/rmsnorm/implementations.h"
#include "benchmarks/rmsnorm/report.h"
#include "benchmarks/rmsnorm/study_runner.h"
#include "runtime/runtime.h"

namespace nsim {
namespace study {
namespace {

std::vector<ImplResult> RunStudy(bool capture) {
  rt::Runtime::Get().Reset();
  compiler::ResetFrameIds();  // torch._dynamo.reset(): each study's region is 0/0, as in a fresh process
  StudyOptions o;
  o.device_capture = capture;
  o.out_dir = ::testing::TempDir() + "/rmsnorm";
  std::vector<ImplResult> results;
  for (const Implementation& impl : StudyImplementations(o)) results.push_back(RunImplementation(impl.name, impl.fn, o));
  EXPECT_TRUE(CheckAgreement(results, o).ok);
  return results;
}

TEST(RmsNormStudy, ReproducesTheCalibratedFiguresAndDispatches) {
  const auto r = RunStudy(/*capture=*/true);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].dispatches, 6);  // square, mean, add, rsqrt, normalise, scale
  EXPECT_EQ(r[1].dispatches, 1);  // aten::_fused_rms_norm
  EXPECT_EQ(r[2].dispatches, 1);  // Torch-Compiled Region: 0/0
  // Calibration points (configs/trn1.yaml capture.*): op by op 2,355 us and
  // rms_norm 403.3 us, to within the rounding of the config values.
  EXPECT_NEAR(r[0].device_us, 2355.0, 2.0);
  EXPECT_NEAR(r[1].device_us, 403.3, 1.0);
  // The aim: the op-by-op/fused ratio within 0.5 of the study's.
  EXPECT_NEAR(r[0].device_us / r[1].device_us, 2355.0 / 403.3, 0.5);
  EXPECT_NEAR(r[0].device_us / r[2].device_us, 2355.0 / 375.5, 0.5);
  // Fusion moves fewer HBM bytes than materialising the intermediates.
  EXPECT_LT(r[2].hbm_bytes, r[0].hbm_bytes);
}

const OpRow* FindRow(const ImplResult& r, const std::string& name) {
  for (const OpRow& row : r.ops)
    if (row.name == name) return &row;
  return nullptr;
}

TEST(RmsNormStudy, CompiledRegionIsOneRowWithItsExecutionAttributed) {
  const auto r = RunStudy(/*capture=*/true);
  const OpRow* region = FindRow(r[2], "Torch-Compiled Region: 0/0");
  ASSERT_NE(region, nullptr) << r[2].table;
  EXPECT_EQ(region->calls, 1);
  EXPECT_DOUBLE_EQ(region->self_neuron_us, r[2].device_us);  // the one execution is the region's
  // Self CPU = graph lookup + 2 tensor guards + the output allocation; the
  // runtime's nrta_execute_schedule is a row of its own.
  const compiler::HostCosts hc = compiler::HostCosts::For(at::Device("neuron:0"));
  const HardwareConfig& hw = rt::Runtime::Get().core(0).config();
  EXPECT_DOUBLE_EQ(region->self_cpu_us, PicosToMicros(hc.graph_lookup + 2 * hc.guard_eval + hw.host.alloc_ps));
  EXPECT_NEAR(region->self_cpu_us, 98.4, 0.5);  // calibration point (host.graph_lookup)
}

TEST(RmsNormStudy, WithoutCaptureOnlyTheKernelsRemain) {
  const auto captured = RunStudy(true);
  const auto plain = RunStudy(false);
  for (size_t i = 0; i < plain.size(); ++i) {
    EXPECT_LT(plain[i].device_us, 50.0) << plain[i].name;  // a few us per execution without capture
    EXPECT_GT(captured[i].device_us - plain[i].device_us, 300.0 * plain[i].dispatches) << plain[i].name;
  }
}

}  // namespace
}  // namespace study
}  // namespace nsim
