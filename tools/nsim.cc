// nsim: run a kernel file on a simulated NeuronCore, compare two configs on
// it, or print a config. `nsim --help` and `nsim SUBCOMMAND --help` list the
// flags; exit codes: 0 ok, 1 simulation or file error, 2 usage.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"
#include "tools/cli/cli.h"
#include "tools/cli/flag_values.h"
#include "tools/cli/progress.h"
#include "tools/compare.h"
#include "tools/grid_run.h"
#include "tools/profile_tables.h"
#include "tools/run_output.h"

namespace nsim {
namespace {

struct Flags {
  std::string kernel_file, config = "trn2", out_dir;
  std::vector<std::string> configs, overrides;
  bool json = false, records = false, save_tensors = false, timing_only = false, allow_races = false;
  int grid = 0;  // --grid N: N SPMD programs on one chip (0: the single-core run)
};

HardwareConfig Config(const std::string& name, const std::vector<std::string>& overrides) {
  return LoadHardwareConfig(cli::ConfigArg(name), overrides);
}

// "nsim run: 1.250 ms simulated, 41230/100000 instructions" (terminal only).
std::string Status(const RunProgress& p) {
  char line[160];
  std::snprintf(line, sizeof line, "nsim run: %.3f ms simulated, %lld/%lld instructions", PicosToMicros(p.simulated) / 1e3,
                static_cast<long long>(p.instructions_done), static_cast<long long>(p.instructions_total));
  return line;
}

int RunGrid(const HardwareConfig& config, const Flags& f) {
  const std::string path = cli::InputFile("KERNEL_FILE", f.kernel_file);
  const nlohmann::json report = GridReport(config, ReadKernelFile(path), path, f.grid);
  std::cout << (f.json ? report.dump(2) + "\n" : FormatGridReport(report));
  return cli::kExitOk;
}

int Run(const Flags& f) {
  const HardwareConfig config = Config(f.config, f.overrides);
  if (f.grid > 0) return RunGrid(config, f);
  const Kernel kernel = LoadKernelFile(cli::InputFile("KERNEL_FILE", f.kernel_file));
  Device device(config);
  device.set_timing_only(f.timing_only);
  device.set_allow_races(f.allow_races);
  // Per-piece DMA records only feed --records and the files of --out (trace,
  // instructions.csv); the summaries are the same without them.
  device.set_record_dma_pieces(f.records || !f.out_dir.empty());
  cli::Progress progress;
  if (progress.enabled()) device.set_progress([&progress](const RunProgress& p) { progress.Update(Status(p)); });
  const ExecutionResult result = device.Execute(kernel);
  const RunDescriptionInput about{"nsim run", f.kernel_file};
  if (!f.out_dir.empty()) {
    const prof::ExportedFiles files =
        WriteRunOutput(cli::UserPath(f.out_dir), device, kernel, result, {about, f.save_tensors});
    std::cerr << "nsim: wrote " << files.trace << ", summary.json, report.html, instructions.csv"
              << (f.save_tensors ? ", tensors/*.npy" : "") << " in " << files.dir << "\n";
    const std::string tables = WriteProfileTables(files.dir);
    if (!tables.empty()) {
      std::cerr << "nsim: error: the Parquet tables (*.parquet) were not written: " << tables << "\n";
      return cli::kExitRuntime;
    }
  }
  if (f.json) std::cout << RunSummaryJson(config, kernel, result, about, f.records).dump(2) << "\n";
  else std::cout << RunSummaryText(config, kernel, result, f.records);
  return cli::kExitOk;
}

std::vector<CompareRow> CompareRows(const ExecutionResult& a, const ExecutionResult& b) {
  std::vector<CompareRow> rows = {{"device time", a.device_time, b.device_time}};
  for (int e = 0; e < kNumEngines; ++e) {
    rows.push_back({std::string(EngineLaneName(static_cast<EngineId>(e))) + " busy", a.engines[e].busy,
                    b.engines[e].busy});
  }
  for (const auto& [q, s] : a.dma_queues) {
    auto it = b.dma_queues.find(q);
    rows.push_back({q + " busy", s.busy, it == b.dma_queues.end() ? 0 : it->second.busy});
  }
  return rows;
}

int Compare(const Flags& f) {
  if (f.configs.size() != 2) {
    throw cli::UsageError("compare needs exactly two --config values (old, then new), got " +
                          std::to_string(f.configs.size()));
  }
  const Kernel kernel = LoadKernelFile(cli::InputFile("KERNEL_FILE", f.kernel_file));
  std::vector<ExecutionResult> results;
  for (const std::string& c : f.configs) {
    Device device(Config(c, f.overrides));
    device.set_timing_only(f.timing_only);
    device.set_allow_races(f.allow_races);
    results.push_back(device.Execute(kernel));
  }
  const std::vector<CompareRow> rows = CompareRows(results[0], results[1]);
  if (f.json) {
    std::cout << CompareJson(f.configs[0], f.configs[1], rows).dump(2) << "\n";
  } else {
    std::cout << "kernel " << kernel.name << ": " << f.configs[0] << " (old) vs " << f.configs[1]
              << " (new); nsim runs kernels without profiler capture\n"
              << CompareTable(f.configs[0], f.configs[1], rows);
  }
  return cli::kExitOk;
}

void AddConfigFlags(CLI::App* cmd, Flags& f) {
  cmd->add_option("--set", f.overrides, "override a config value, KEY=VALUE (repeatable), e.g. vector.freq=2.24GHz");
}

// Races between engines and DMA transfers fail a run by default (README "Robustness").
void AddAllowRacesFlag(CLI::App* cmd, Flags& f) {
  cmd->add_flag("--allow-races", f.allow_races,
                "report data races between engines and DMA transfers as warnings instead of failing the run");
}

void AddTimingOnlyFlag(CLI::App* cmd, Flags& f) {
  cmd->add_flag("--timing-only", f.timing_only,
                "time the kernel without computing values: same device time, records and trace, much faster");
}

int Main(int argc, char** argv) {
  Flags f;
  CLI::App app("nsim: a cycle-approximate Trainium NeuronCore simulator", "nsim");
  app.require_subcommand(1);
  CLI::App* run = app.add_subcommand("run", "run a kernel file (docs/kernel-format.md) and report its device time");
  run->add_option("KERNEL_FILE", f.kernel_file, "kernel text file")->required();
  run->add_option("--config", f.config, "config name under configs/ or a YAML path (default trn2)");
  AddConfigFlags(run, f);
  run->add_flag("--json", f.json, "print summary.json (docs/output-schema.md) instead of the text report");
  run->add_flag("--records", f.records, "also list every instruction and DMA piece (in the JSON as \"records\")");
  run->add_option("--out", f.out_dir, "write trace.json, summary.json, report.html, instructions.csv into DIR");
  run->add_flag("--save-tensors", f.save_tensors, "with --out: write every HBM tensor as DIR/tensors/NAME.npy");
  run->add_option("--grid", f.grid, "run N SPMD programs (program_id 0..N-1) on cores 0..N-1 of one chip")
      ->check(CLI::Range(1, 1024));
  AddTimingOnlyFlag(run, f);
  AddAllowRacesFlag(run, f);
  CLI::App* config = app.add_subcommand("config", "print the fully resolved config");
  config->add_option("--config", f.config, "config name under configs/ or a YAML path (default trn2)");
  AddConfigFlags(config, f);
  CLI::App* compare = app.add_subcommand("compare", "run a kernel on two configs: per engine old/new/change");
  compare->add_option("KERNEL_FILE", f.kernel_file, "kernel text file")->required();
  compare->add_option("--config", f.configs, "the two configs, old then new (names or YAML paths)")->required();
  AddConfigFlags(compare, f);
  compare->add_flag("--json", f.json, "print the comparison as JSON");
  AddTimingOnlyFlag(compare, f);
  AddAllowRacesFlag(compare, f);
  return cli::Run(app, argc, argv, [&]() -> int {
    if (run->parsed()) {
      if (f.save_tensors && f.out_dir.empty()) throw cli::UsageError("--save-tensors needs --out DIR");
      if (f.grid > 0 && (!f.out_dir.empty() || f.records || f.timing_only || f.allow_races)) {
        throw cli::UsageError("--grid does not combine with --out, --records, --timing-only or --allow-races yet");
      }
      if (f.save_tensors && f.timing_only) {
        throw cli::UsageError("--save-tensors and --timing-only conflict: a timing-only run computes no tensor values");
      }
      return Run(f);
    }
    if (compare->parsed()) return Compare(f);
    std::cout << FormatHardwareConfig(Config(f.config, f.overrides));
    return cli::kExitOk;
  });
}

}  // namespace
}  // namespace nsim

int main(int argc, char** argv) { return nsim::Main(argc, argv); }
