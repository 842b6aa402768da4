#include "runtime/runtime.h"

#include "runtime/clock.h"
#include "runtime/errors.h"
#include "sim/config/loader.h"
#include "sim/config/params.h"

namespace nsim {
namespace rt {

Runtime& Runtime::Get() {
  static Runtime runtime;
  return runtime;
}

void Runtime::Configure(const std::string& config, const std::vector<std::string>& overrides) {
  auto loaded = std::make_unique<HardwareConfig>(LoadHardwareConfig(config, overrides));
  std::lock_guard<std::mutex> lock(mu_);
  default_config_ = std::move(loaded);
}

HardwareConfig Runtime::default_config() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!default_config_)
    default_config_ = std::make_unique<HardwareConfig>(LoadHardwareConfig(kDefaultConfig));
  return *default_config_;
}

NeuronCoreDevice& Runtime::core(int index) {
  CheckIndex(index);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cores_.find(index);
    if (it != cores_.end()) return *it->second;
  }
  HardwareConfig config = default_config();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cores_.find(index);  // another thread may have made it meanwhile
  return it != cores_.end() ? *it->second : Create(index, std::move(config));
}

NeuronCoreDevice& Runtime::ConfigureCore(int index, const std::string& config,
                                         const std::vector<std::string>& overrides) {
  CheckIndex(index);
  HardwareConfig loaded = LoadHardwareConfig(config, overrides);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cores_.find(index);
  if (it != cores_.end()) {
    throw RuntimeError("neuron:" + std::to_string(index) + " already exists with config '" +
                       it->second->config().name + "'; configure a core before its first use");
  }
  return Create(index, std::move(loaded));
}

void Runtime::set_lnc(int lnc) {
  const HardwareConfig config = default_config();
  const int64_t cores = config.chip.cores;
  if (lnc == 0) lnc = static_cast<int>(config.chip.default_lnc);
  if (lnc < 1 || cores % lnc != 0) {
    throw RuntimeError("set_lnc(" + std::to_string(lnc) + "): a logical core must group a divisor of the " +
                       std::to_string(cores) + " physical cores of a '" + config.name + "' chip (chip.cores)");
  }
  std::lock_guard<std::mutex> lock(mu_);
  lnc_ = lnc;
}

int Runtime::lnc() {
  std::lock_guard<std::mutex> lock(mu_);
  return lnc_;
}

std::pair<std::shared_ptr<Chip>, std::vector<int>> Runtime::TakeCores(const HardwareConfig& config, int lnc) {
  const int cores = static_cast<int>(config.chip.cores);
  if (lnc < 1 || cores % lnc != 0) {
    throw RuntimeError("LNC " + std::to_string(lnc) + " does not divide the " + std::to_string(cores) +
                       " physical cores of a '" + config.name + "' chip (chip.cores)");
  }
  const uint64_t hash = ConfigContentHash(config);
  // The first free group of a chip of this config; a new chip when none is free.
  for (size_t i = 0;; ++i) {
    if (i == chips_.size()) {
      chips_.push_back({std::make_shared<Chip>(config), hash, std::vector<bool>(static_cast<size_t>(cores), false)});
    }
    ChipUse& use = chips_[i];
    if (use.config_hash != hash) continue;
    for (int first = 0; first + lnc <= cores; first += lnc) {
      std::vector<int> group;
      for (int c = first; c < first + lnc && !use.used[c]; ++c) group.push_back(c);
      if (static_cast<int>(group.size()) != lnc) continue;
      for (int c : group) use.used[c] = true;
      return {use.chip, group};
    }
  }
}

NeuronCoreDevice& Runtime::Create(int index, HardwareConfig config) {
  auto [chip, cores] = TakeCores(config, lnc_);
  auto core = std::make_unique<NeuronCoreDevice>(index, std::move(chip), std::move(cores));
  NeuronCoreDevice& ref = *core;
  ref.set_timing_only(timing_only_);
  cores_.emplace(index, std::move(core));
  return ref;
}

bool Runtime::HasCore(int index) {
  std::lock_guard<std::mutex> lock(mu_);
  return cores_.count(index) != 0;
}

WallTime Runtime::wall_time() {
  std::lock_guard<std::mutex> lock(mu_);
  WallTime total;
  for (const auto& entry : cores_) total += entry.second->wall_time();
  return total;
}

void Runtime::set_timing_only(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  timing_only_ = on;
  for (auto& [index, core] : cores_) core->set_timing_only(on);
}

bool Runtime::timing_only() {
  std::lock_guard<std::mutex> lock(mu_);
  return timing_only_;
}

void Runtime::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  timing_only_ = false;
  cores_.clear();
  chips_.clear();
  lnc_ = 1;
  default_config_.reset();
  SimClock::Get().Reset();
}

void Runtime::CheckIndex(int index) const {
  if (index >= 0 && index < kMaxCores) return;
  throw RuntimeError("neuron:" + std::to_string(index) + ": no such NeuronCore (valid indices are 0.." +
                     std::to_string(kMaxCores - 1) + ")");
}

}  // namespace rt
}  // namespace nsim
