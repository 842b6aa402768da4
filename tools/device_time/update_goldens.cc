// bazel run //tools/device_time:update_goldens
// Measures the built-in workloads and rewrites tests/device_time_goldens.tsv
// in the source tree; review the diff and commit it with the change that
// moved the device times.
#include <cstdlib>
#include <iostream>

#include "tools/device_time/workloads.h"

int main() {
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (ws == nullptr) {
    std::cerr << "run me with `bazel run //tools/device_time:update_goldens`\n";
    return 2;
  }
  try {
    const std::string path = std::string(ws) + "/tests/device_time_goldens.tsv";
    const auto measured = nsim::gate::Measure(nsim::gate::BuiltinWorkloads());
    nsim::gate::WriteGoldens(path, measured,
                             "# Device-time goldens of the built-in workloads (tools/device_time/workloads.cc), in ps.\n"
                             "# Checked exactly by //tests:device_time_test. Rewrite after an intended change with\n"
                             "#   bazel run //tools/device_time:update_goldens\n");
    std::cout << "wrote " << measured.size() << " goldens to " << path << "\n";
  } catch (const std::exception& e) {
    std::cerr << "update_goldens: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
