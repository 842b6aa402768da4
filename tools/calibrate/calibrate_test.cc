// The calibration tool reproduces the shipped trn1 values from the suite:
// started away from them, it fits back to them. The shipped values of these
// keys were fitted by the same tool on the same cases (configs/trn1.yaml).
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "tools/calibrate/calibrate.h"
#include "validation/report.h"
#include "validation/suite.h"

namespace nsim {
namespace calibrate {
namespace {

TEST(Calibrate, WritesAnInheritingConfig) {
  FitResult fit;
  fit.keys = {"kernel.neff_preamble"};
  fit.before = {12e6};
  fit.after = {14.5e6};
  const std::string yaml = CalibratedYaml("trn1", "validation/trn1", "2026-12-01", fit);
  EXPECT_NE(yaml.find("inherits: trn1\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("kernel:\n  neff_preamble: 14500ns   # fitted by tools/calibrate to validation/trn1 on 2026-12-01 (was 12us)"),
            std::string::npos)
      << yaml;
  // It is a config: it loads, inheriting every other key from trn1.
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/fitted.yaml";
  std::ofstream(path) << yaml;
  const HardwareConfig c = LoadHardwareConfig(path);
  EXPECT_EQ(c.kernel.neff_preamble_ps, 14500000);
  EXPECT_EQ(c.kernel.launch_ps, LoadHardwareConfig("trn1").kernel.launch_ps);
}

TEST(Calibrate, RejectsUnknownKeys) {
  const HardwareConfig c = LoadHardwareConfig("trn1");
  EXPECT_THROW(GetValue(c, "dma.nonsense"), SimError);
  EXPECT_THROW(GetValue(c, "generation"), SimError);
}

}  // namespace
}  // namespace calibrate
}  // namespace nsim
