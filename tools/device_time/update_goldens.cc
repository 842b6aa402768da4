// bazel run //tools/device_time:update_goldens [-- --goldens PATH] [--check]
// Measures the built-in workloads and rewrites tests/device_time_goldens.tsv
// in the source tree (or PATH); review the diff and commit it with the change
// that moved the device times. --check compares instead of writing.
#include <cstdlib>
#include <iostream>

#include "tools/cli/cli.h"
#include "tools/cli/flag_values.h"
#include "tools/device_time/workloads.h"

int main(int argc, char** argv) {
  std::string goldens;
  bool check = false;
  CLI::App app("Rewrite the device-time goldens of the built-in workloads", "update_goldens");
  app.add_option("--goldens", goldens,
                 "golden file to write (default: tests/device_time_goldens.tsv of the workspace `bazel run` is in)");
  app.add_flag("--check", check, "compare with the golden file instead of rewriting it (exit 1 on a change)");
  return nsim::cli::Run(app, argc, argv, [&]() -> int {
    namespace cli = nsim::cli;
    std::string path = cli::UserPath(goldens);
    if (path.empty()) {
      const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
      if (ws == nullptr) throw cli::UsageError("--goldens PATH is needed outside `bazel run`");
      path = std::string(ws) + "/tests/device_time_goldens.tsv";
    }
    const auto measured = nsim::gate::Measure(nsim::gate::BuiltinWorkloads());
    if (check) {
      const auto cmp = nsim::gate::Compare(nsim::gate::ReadGoldens(path), measured);
      std::cout << cmp.table << (cmp.ok ? "device times unchanged\n" : "DEVICE TIME CHANGED\n");
      return cmp.ok ? cli::kExitOk : cli::kExitRuntime;
    }
    nsim::gate::WriteGoldens(path, measured,
                             "# Device-time goldens of the built-in workloads (tools/device_time/workloads.cc), in ps.\n"
                             "# Checked exactly by //tests:device_time_test. Rewrite after an intended change with\n"
                             "#   bazel run //tools/device_time:update_goldens\n");
    std::cout << "wrote " << measured.size() << " goldens to " << path << "\n";
    return cli::kExitOk;
  });
}
