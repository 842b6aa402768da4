// The calibration set (hardware-measurements.md) on trn1: every case within
// 15 % of its measurement and the median within 10 %. Simulated device time
// is deterministic, so this is a correctness test of the model's fidelity,
// not a timed test. The same kernels also run unchanged on trn2 and trn3.
#include <gtest/gtest.h>

#include "sim/config/loader.h"
#include "sim/model/device.h"
#include "sim/model/timing_run.h"
#include "validation/report.h"
#include "validation/run.h"
#include "validation/suite.h"

namespace nsim {
namespace validation {
namespace {

TEST(Validation, Trn1CalibrationSetWithinTolerance) {
  const HardwareConfig cfg = LoadHardwareConfig("trn1");
  SuiteRunner runner(Trn1Suite());
  const std::vector<CaseResult> results = runner.Run(cfg);
  ASSERT_EQ(results.size(), runner.cases().size());
  for (const CaseResult& r : results) {
    EXPECT_LE(std::fabs(r.error), 0.15) << r.c->name << ": measured " << r.c->measured_ns << " ns, model "
                                        << r.model_ns << " ns";
  }
  const SuiteStats s = Summarise(results);
  EXPECT_LE(s.median_abs_error, 0.10);
}

TEST(Validation, SameKernelsRunOnTrn2AndTrn3) {
  // Only documented per-generation parameters differ; the kernels are the
  // same. Newer parts are faster (clocks, DMA bandwidth) on every window.
  const std::vector<Case> cases = SelectCases(Trn1Suite(), "cs149_stream_free_dim_2000,matmul_fully_optimised");
  SuiteRunner runner(cases);
  const auto t1 = runner.Run(LoadHardwareConfig("trn1"));
  for (const char* part : {"trn2", "trn3"}) {
    const auto tn = runner.Run(LoadHardwareConfig(part));
    for (size_t i = 0; i < tn.size(); ++i) {
      EXPECT_GT(tn[i].model_ns, 0) << part;
      EXPECT_NE(tn[i].model_ns, t1[i].model_ns) << part << " " << tn[i].c->name;
    }
  }
}

TEST(Validation, TimingOnlyEqualsComputedTiming) {
  // The suite times kernels without computing values; both paths must give
  // bit-identical records.
  const HardwareConfig cfg = LoadHardwareConfig("trn1");
  const Kernel k = SelectCases(Trn1Suite(), "cs149_stream_free_dim_2").front().build();
  Device dev(cfg);
  const auto loaded = dev.Load(k);
  const ExecutionResult full = dev.Execute(*loaded);
  const ExecutionResult timing = ExecuteTimingOnly(cfg, *loaded);
  EXPECT_EQ(full.device_time, timing.device_time);
  ASSERT_EQ(full.instructions.size(), timing.instructions.size());
  for (size_t i = 0; i < full.instructions.size(); ++i) {
    EXPECT_EQ(full.instructions[i].start, timing.instructions[i].start);
    EXPECT_EQ(full.instructions[i].end, timing.instructions[i].end);
  }
}

}  // namespace
}  // namespace validation
}  // namespace nsim
