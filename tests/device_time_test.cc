// Device-time regression: every built-in workload's simulated device time must
// equal its golden value exactly (simulation is deterministic). On failure
// the table shows old, new and change for every workload; after an intended
// change run `bazel run //tools/device_time:update_goldens` and commit the file.
#include <iostream>

#include <gtest/gtest.h>

#include "tools/device_time/workloads.h"

namespace nsim {
namespace {

TEST(DeviceTime, MatchesGoldens) {
  const auto goldens = gate::ReadGoldens("tests/device_time_goldens.tsv");
  const auto cmp = gate::Compare(goldens, gate::Measure(gate::BuiltinWorkloads()));
  std::cout << cmp.table;
  EXPECT_TRUE(cmp.ok) << "device times moved:\n"
                      << cmp.table
                      << "If intended: bazel run //tools/device_time:update_goldens, and commit the new goldens.";
}

}  // namespace
}  // namespace nsim
