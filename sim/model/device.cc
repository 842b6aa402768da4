#include "sim/model/device.h"

#include "sim/base/error.h"
#include "sim/config/params.h"
#include "sim/model/hbm_binding.h"
#include "sim/model/loaded_kernel.h"
#include "sim/memory/onchip_memory.h"
#include "sim/model/race_detector.h"
#include "sim/model/sim_host.h"
#include "sim/model/timing_run.h"

namespace nsim {

Device::Device(HardwareConfig config)
    : config_(std::move(config)),
      config_hash_(ConfigContentHash(config_)),
      hbm_(std::make_shared<HbmMemory>(static_cast<uint64_t>(config_.memory.hbm_bytes))),
      onchip_(std::make_unique<OnChipMemory>(config_.memory)) {}

Device::Device(HardwareConfig config, std::shared_ptr<HbmMemory> hbm)
    : config_(std::move(config)),
      config_hash_(ConfigContentHash(config_)),
      hbm_(std::move(hbm)),
      onchip_(std::make_unique<OnChipMemory>(config_.memory)) {}

Device::~Device() = default;

std::shared_ptr<const LoadedKernel> Device::Load(const Kernel& kernel, std::optional<uint64_t> known_hash) const {
  return std::make_shared<const LoadedKernel>(kernel, config_, known_hash);
}

ExecutionResult Device::Execute(const LoadedKernel& kernel, const std::map<std::string, uint64_t>& bindings) {
  CheckLoadedFor(kernel, config_, config_hash_, "device");
  const Kernel& k = kernel.kernel();
  std::map<std::string, uint64_t> scratch;
  const std::vector<uint64_t> addresses =
      BindHbm(k, bindings, *hbm_, hbm_->capacity(), &scratch, /*init_scratch=*/!timing_only_);
  if (timing_only_) {
    ExecutionResult result = ExecuteTimingOnly(config_, kernel, addresses, progress_, record_dma_pieces_);
    CheckRaces(kernel, addresses, allow_races_, &result);
    result.scratch_addresses = std::move(scratch);
    return result;
  }
  onchip_->ClearTensorsOf(k);
  ExecContext ctx{k, *onchip_, *hbm_, addresses, {}};
  ctx.record_dma_pieces = record_dma_pieces_;
  ExecutionResult result = SimHost::Get().Run(config_, kernel, ctx, progress_);
  CheckRaces(kernel, addresses, allow_races_, &result);
  result.scratch_addresses = std::move(scratch);
  return result;
}

ExecutionResult Device::Execute(const Kernel& kernel, const std::map<std::string, uint64_t>& bindings) {
  return Execute(*Load(kernel), bindings);
}

}  // namespace nsim
