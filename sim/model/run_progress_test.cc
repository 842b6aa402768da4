// Progress reporting (model/run_progress.h): the run advances in slices of
// simulated time and reports between them, and nothing it computes changes —
// the same device time, records, output values and scratch placement as an
// uninterrupted run — with values and timing-only alike.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"

namespace nsim {
namespace {

Kernel Example(const std::string& name) {
  return LoadKernelFile(std::string(std::getenv("TEST_SRCDIR")) + "/nsim/sim/kernel/examples/" + name);
}

void ExpectSameRun(const ExecutionResult& a, const ExecutionResult& b) {
  EXPECT_EQ(a.device_time, b.device_time);
  ASSERT_EQ(a.instructions.size(), b.instructions.size());
  for (size_t i = 0; i < a.instructions.size(); ++i) {
    EXPECT_EQ(a.instructions[i].engine, b.instructions[i].engine);
    EXPECT_EQ(a.instructions[i].index, b.instructions[i].index);
    EXPECT_EQ(a.instructions[i].start, b.instructions[i].start);
    EXPECT_EQ(a.instructions[i].end, b.instructions[i].end);
  }
  ASSERT_EQ(a.dma.size(), b.dma.size());
  for (size_t i = 0; i < a.dma.size(); ++i) {
    EXPECT_EQ(a.dma[i].start, b.dma[i].start);
    EXPECT_EQ(a.dma[i].end, b.dma[i].end);
  }
}

class RunProgressTest : public ::testing::TestWithParam<bool> {};  // timing-only or with values

TEST_P(RunProgressTest, ReportsWithoutChangingTheRun) {
  const bool timing_only = GetParam();
  for (const char* name : {"matmul.nk", "rmsnorm.nk", "trivial_add.nk"}) {
    const Kernel k = Example(name);
    Device quiet(LoadHardwareConfig("trn1"));
    quiet.set_timing_only(timing_only);
    const ExecutionResult plain = quiet.Execute(k);

    Device watched(LoadHardwareConfig("trn1"));
    watched.set_timing_only(timing_only);
    std::vector<RunProgress> reports;
    watched.set_progress([&reports](const RunProgress& p) { reports.push_back(p); });
    const ExecutionResult reported = watched.Execute(k);

    SCOPED_TRACE(name);
    ExpectSameRun(plain, reported);
    if (!timing_only) {
      for (const auto& [tensor, address] : plain.scratch_addresses) {
        const TensorDecl& t = k.tensors[k.FindTensor(tensor)];
        const size_t bytes = static_cast<size_t>(t.NumElements() * DTypeSize(t.dtype));
        std::vector<uint8_t> x(bytes), y(bytes);
        quiet.hbm().Read(address, x.data(), bytes);
        watched.hbm().Read(reported.scratch_addresses.at(tensor), y.data(), bytes);
        EXPECT_EQ(x, y) << tensor;
      }
    }
    // One report per started 10 us slice up to the launch's last SystemC
    // event, each later than the one before. (Device time can end a little
    // after that event: a DMA queue's completion write is accounted, not
    // simulated as an event.)
    ASSERT_FALSE(reports.empty());
    const Picos last_event = reports.back().simulated;
    EXPECT_LE(last_event, plain.device_time);
    EXPECT_EQ(reports.size(), static_cast<size_t>((last_event + kProgressSlicePs - 1) / kProgressSlicePs));
    for (size_t i = 1; i < reports.size(); ++i) EXPECT_GT(reports[i].simulated, reports[i - 1].simulated);
    EXPECT_EQ(reports.back().instructions_total, static_cast<int64_t>(k.NumInstructions()));
    EXPECT_EQ(reports.back().instructions_done, reports.back().instructions_total);
  }
}

INSTANTIATE_TEST_SUITE_P(ValuesAndTimingOnly, RunProgressTest, ::testing::Bool());

}  // namespace
}  // namespace nsim
