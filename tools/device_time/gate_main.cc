// Gate your own kernels and configs on device time:
//   bazel run //tools/device_time:gate -- --goldens my_goldens.tsv \
//       --kernel path/to/a.nk --kernel path/to/b.nk --config trn2 --config my_part.yaml [--update] [--timing-only]
// Without --update it exits 1 and prints old/new/change when any device time
// moved; with --update it rewrites the golden file. `gate --help` lists the flags.
#include <iostream>
#include <string>
#include <vector>

#include "tools/cli/cli.h"
#include "tools/cli/flag_values.h"
#include "tools/device_time/gate.h"

int main(int argc, char** argv) {
  std::string goldens;
  std::vector<std::string> kernels, configs = {"trn2"};
  bool update = false, timing_only = false;
  CLI::App app("Device-time gate: compare kernels' device times with a golden file", "gate");
  app.add_option("--goldens", goldens, "golden file, name<TAB>config<TAB>device_time_ps per line")->required();
  app.add_option("--kernel", kernels, "kernel file to gate (repeatable)")->required();
  app.add_option("--config", configs, "config name or YAML path (repeatable, default trn2)");
  app.add_flag("--update", update, "rewrite the golden file with the measured times");
  app.add_flag("--timing-only", timing_only, "time the kernels without computing values (same device times, faster)");
  return nsim::cli::Run(app, argc, argv, [&]() -> int {
    namespace cli = nsim::cli;
    std::vector<nsim::gate::Workload> workloads;
    for (const std::string& c : configs)
      for (const std::string& k : kernels)
        workloads.push_back(nsim::gate::KernelFileWorkload(cli::InputFile("--kernel", k), cli::ConfigArg(c), k));
    const std::string path = cli::UserPath(goldens);
    const auto measured = nsim::gate::Measure(workloads, timing_only);
    if (update) {
      nsim::gate::WriteGoldens(path, measured, "# device-time goldens written by //tools/device_time:gate --update\n");
      std::cout << "wrote " << measured.size() << " goldens to " << path << "\n";
      return cli::kExitOk;
    }
    const auto cmp = nsim::gate::Compare(nsim::gate::ReadGoldens(path), measured);
    std::cout << cmp.table << (cmp.ok ? "device times unchanged\n" : "DEVICE TIME CHANGED (rerun with --update if intended)\n");
    return cmp.ok ? cli::kExitOk : cli::kExitRuntime;
  });
}
