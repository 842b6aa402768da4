#include "runtime/runtime.h"

#include "runtime/clock.h"
#include "runtime/errors.h"
#include "sim/config/loader.h"

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

NeuronCoreDevice& Runtime::Create(int index, HardwareConfig config) {
  auto core = std::make_unique<NeuronCoreDevice>(index, std::move(config));
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
