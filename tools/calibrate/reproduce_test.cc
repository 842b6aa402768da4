// The calibration tool reproduces the shipped trn1 values from the suite:
// started 25 % away from them, the fit of kernel.launch and
// kernel.neff_preamble to the single-pass cases (the command recorded in
// configs/trn1.yaml) returns to the shipped values. These cases run in
// milliseconds, so the fit runs in the test; the DMA keys were fitted the
// same way on the loop cases, which take ~20 s per evaluation (README).
#include <cmath>
#include <gtest/gtest.h>

#include "sim/config/loader.h"
#include "tools/calibrate/calibrate.h"
#include "validation/report.h"
#include "validation/suite.h"

namespace nsim {
namespace calibrate {
namespace {

TEST(Calibrate, ReproducesShippedTrn1Values) {
  const HardwareConfig shipped = LoadHardwareConfig("trn1");
  const std::vector<std::string> keys = {"kernel.launch", "kernel.neff_preamble"};
  const HardwareConfig start = WithValues(shipped, keys, {GetValue(shipped, keys[0]) * 1.25,
                                                          GetValue(shipped, keys[1]) * 0.75});
  validation::SuiteRunner runner(validation::SelectCases(
      validation::Trn1Suite(),
      "nrtpy_trivial_add,cs149_stream_free_dim_200,cs149_stream_free_dim_2000,cs149_stream_free_dim_1000,"
      "cs149_modulo_alloc_4_buffers"));
  const FitResult fit = Fit(runner, start, keys, 120);
  EXPECT_LT(fit.cost_after, fit.cost_before);
  for (size_t i = 0; i < keys.size(); ++i) {
    const double want = GetValue(shipped, keys[i]);
    EXPECT_NEAR(fit.after[i] / want, 1.0, 0.01) << keys[i] << ": fitted " << fit.after[i] << " ps, shipped " << want;
  }
}

}  // namespace
}  // namespace calibrate
}  // namespace nsim
