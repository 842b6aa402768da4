#include "tools/grid_run.h"

#include <cstdio>
#include <sstream>

#include "sim/base/error.h"
#include "sim/kernel/parser.h"
#include "sim/model/chip.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {
namespace {

// One core's figures: device time, engine utilisation, DMA and HBM bytes (the
// result's metrics, the same numbers the single-core report shows).
nlohmann::json CoreReport(const Kernel& kernel, const ExecutionResult& r) {
  nlohmann::json util = nlohmann::json::object();
  for (int e = 0; e < kNumEngines; ++e) {
    const EngineId id = static_cast<EngineId>(e);
    util[EngineLaneName(id)] = Utilisation(r.engines[e].busy, r.device_time);
  }
  const double ns = PicosToNanos(r.device_time);
  return {{"kernel", kernel.name},
          {"kernel_hash", std::to_string(r.kernel_hash)},
          {"device_time_ns", ns},
          {"instructions", kernel.NumInstructions()},
          {"utilization", util},
          {"dma_bytes", r.dma_bytes},
          {"dma_bandwidth_over_device_time_gbps", ns > 0 ? static_cast<double>(r.dma_bytes) / ns : 0.0},
          {"hbm_bytes_read", r.hbm_bytes_read},
          {"hbm_bytes_written", r.hbm_bytes_written}};
}

}  // namespace

nlohmann::json GridReport(const HardwareConfig& config, const std::string& kernel_text, const std::string& filename,
                          int programs) {
  Chip chip(config);
  if (programs > chip.cores()) {
    throw SimError("--grid " + std::to_string(programs) + ": config '" + config.name + "' has " +
                   std::to_string(chip.cores()) + " cores per chip (chip.cores)");
  }
  const std::vector<Kernel> kernels = ParseGrid(kernel_text, filename, programs);
  std::vector<std::shared_ptr<const LoadedKernel>> loaded;
  for (const Kernel& k : kernels) loaded.push_back(chip.Load(k));
  return GridResultReport(config, kernels, chip.Launch(loaded));
}

nlohmann::json GridResultReport(const HardwareConfig& config, const std::vector<Kernel>& kernels,
                                const GridResult& r) {
  nlohmann::json cores = nlohmann::json::array();
  for (size_t i = 0; i < r.programs.size(); ++i) {
    cores.push_back({{"program", i},
                     {"core", r.cores[i]},
                     {"home_hbm_stack", config.chip.StackOf(r.cores[i])},
                     {"report", CoreReport(kernels[i], r.programs[i])}});
  }
  return {{"config", config.name},
          {"grid", static_cast<int>(r.programs.size())},
          {"chip_cores", config.chip.cores},
          {"hbm_stacks", config.chip.hbm_stacks},
          {"device_time_ns", PicosToNanos(r.device_time)},
          {"cores", cores}};
}

std::string FormatGridReport(const nlohmann::json& j) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof line, "grid of %d programs on %s (%d cores, %d HBM stacks): chip device time %.3f us\n\n",
                j["grid"].get<int>(), j["config"].get<std::string>().c_str(), j["chip_cores"].get<int>(),
                j["hbm_stacks"].get<int>(), j["device_time_ns"].get<double>() / 1000.0);
  os << line;
  std::snprintf(line, sizeof line, "%-7s %4s %4s %14s %9s %9s %9s %9s %12s %10s\n", "program", "core", "home",
                "device (us)", "TensorE", "VectorE", "ScalarE", "GpSimd", "DMA bytes", "DMA GB/s");
  os << line;
  for (const auto& c : j["cores"]) {
    const auto& r = c["report"];
    auto util = [&r](const char* engine) { return 100.0 * r["utilization"][engine].get<double>(); };
    std::snprintf(line, sizeof line, "%-7d %4d %4d %14.3f %8.1f%% %8.1f%% %8.1f%% %8.1f%% %12lld %10.2f\n",
                  c["program"].get<int>(), c["core"].get<int>(), c["home_hbm_stack"].get<int>(),
                  r["device_time_ns"].get<double>() / 1000.0, util("TensorE"), util("VectorE"), util("ScalarE"),
                  util("GpSimd"), static_cast<long long>(r["dma_bytes"].get<int64_t>()),
                  r["dma_bandwidth_over_device_time_gbps"].get<double>());
    os << line;
  }
  os << "(home: the HBM stack of the core's own memory; unbound tensors are shared scratch in program 0's)\n";
  return os.str();
}

}  // namespace nsim
