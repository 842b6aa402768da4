#include "tools/grid_run.h"

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"

namespace nsim {
namespace {

TEST(GridRun, ReportsChipTimeAndEveryCore) {
  const HardwareConfig config = LoadHardwareConfig("trn2");
  const std::string text = ReadKernelFile("sim/kernel/examples/spmd_scale.nk");
  const nlohmann::json r = GridReport(config, text, "spmd_scale.nk", 8);
  ASSERT_EQ(r["cores"].size(), 8u);
  double slowest = 0;
  for (const auto& c : r["cores"]) {
    slowest = std::max(slowest, c["report"]["device_time_ns"].get<double>());
    EXPECT_EQ(c["report"]["dma_bytes"].get<int64_t>(), 2 * 8 * 2048 * 2);  // its rows, in and out
  }
  EXPECT_EQ(r["device_time_ns"].get<double>(), slowest);
  EXPECT_EQ(r["cores"][7]["home_hbm_stack"].get<int>(), 3);
  const std::string text_report = FormatGridReport(r);
  EXPECT_NE(text_report.find("grid of 8 programs on trn2"), std::string::npos);
  EXPECT_THROW(GridReport(config, text, "spmd_scale.nk", 9), SimError);
}

}  // namespace
}  // namespace nsim
