#pragma once
// The process's Neuron runtime: the registry of logical NeuronCores the
// framework addresses as "neuron:N". Cores are created on first use with the
// current default hardware config (trn2 unless Configure chose another), or
// explicitly with their own config, so one process can hold different parts
// side by side (e.g. neuron:0 a trn2 core, neuron:1 a trn1 core).
//
//   rt::Runtime::Get().Configure("trn1");            // parts for cores made from now on
//   rt::NeuronCoreDevice& nc = rt::Runtime::Get().core(0);
//   rt::Runtime::Get().ConfigureCore(1, "trn2", {"vector.freq=2GHz"});
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/neuron_core.h"
#include "runtime/wall_time.h"
#include "sim/config/hw_config.h"

namespace nsim {
namespace rt {

class Runtime {
 public:
  // A Trn2 instance has 16 chips of 8 NeuronCores (S2): the largest machine
  // a process could address. Cores cost nothing until used.
  static constexpr int kMaxCores = 128;
  static constexpr const char* kDefaultConfig = "trn2";

  static Runtime& Get();

  // Chooses the hardware (a config name or a .yaml path, plus "key=value"
  // overrides) of the cores created from now on; existing cores keep theirs.
  // The config is loaded here, so a bad name or override throws SimError now.
  void Configure(const std::string& config, const std::vector<std::string>& overrides = {});
  // The config new cores get (a copy: Configure may replace it).
  HardwareConfig default_config();

  // Core `index`, created with the default config on first use. Throws
  // RuntimeError for an index outside [0, kMaxCores).
  NeuronCoreDevice& core(int index);
  // Creates core `index` with its own config. Throws RuntimeError if it
  // already exists (its memory and loaded kernels belong to its config).
  NeuronCoreDevice& ConfigureCore(int index, const std::string& config,
                                  const std::vector<std::string>& overrides = {});
  bool HasCore(int index);

  // Timing-only mode for every core, existing and created later (see
  // NeuronCoreDevice::set_timing_only); Reset turns it off.
  void set_timing_only(bool on);
  bool timing_only();

  // The simulator's real time over all cores (see wall_time.h).
  WallTime wall_time();

  // Destroys every core, restores the default config and sets the simulated
  // clock back to 0: a fresh process, for tests. References to cores die.
  void Reset();

 private:
  Runtime() = default;
  void CheckIndex(int index) const;
  NeuronCoreDevice& Create(int index, HardwareConfig config);  // with mu_ held

  std::mutex mu_;                                   // guards the registry, not the cores' work
  std::unique_ptr<HardwareConfig> default_config_;  // loaded lazily: needs the config files
  std::map<int, std::unique_ptr<NeuronCoreDevice>> cores_;
  bool timing_only_ = false;
};

}  // namespace rt
}  // namespace nsim
