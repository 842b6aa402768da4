#include "sim/model/device.h"

#include "sim/base/error.h"
#include "sim/config/params.h"
#include "sim/model/hbm_binding.h"
#include "sim/model/loaded_kernel.h"
#include "sim/memory/onchip_memory.h"
#include "sim/model/run_alone.h"
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

namespace {

BoundGrid ValueBinding(const Kernel& k, OnChipMemory& onchip, HbmMemory& hbm, std::vector<uint64_t> addresses,
                       bool record_dma_pieces) {
  BoundGrid bound;
  bound.addresses.push_back(std::move(addresses));
  bound.contexts.push_back(std::make_unique<ExecContext>(ExecContext{k, onchip, hbm, bound.addresses[0], {}}));
  bound.contexts[0]->record_dma_pieces = record_dma_pieces;
  return bound;
}

}  // namespace

ExecutionResult Device::Execute(const LoadedKernel& kernel, const std::map<std::string, uint64_t>& bindings) {
  CheckLoadedFor(kernel, config_, config_hash_, "device");
  const Kernel& k = kernel.kernel();
  std::map<std::string, uint64_t> scratch;
  std::vector<uint64_t> addresses =
      BindHbm(k, bindings, *hbm_, hbm_->capacity(), &scratch, /*init_scratch=*/!timing_only_);
  if (!timing_only_) onchip_->ClearTensorsOf(k);
  BoundGrid bound = timing_only_ ? UntouchedBinding(config_, k, std::move(addresses), record_dma_pieces_)
                                 : ValueBinding(k, *onchip_, *hbm_, std::move(addresses), record_dma_pieces_);
  bound.scratch = std::move(scratch);
  return RunAlone(config_, kernel, std::move(bound), allow_races_, progress_);
}

ExecutionResult Device::Execute(const Kernel& kernel, const std::map<std::string, uint64_t>& bindings) {
  return Execute(*Load(kernel), bindings);
}

}  // namespace nsim
