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
#include "sim/base/dtype.h"
#include "sim/config/hw_config.h"

namespace nsim {
namespace rt {

// One buffer of a collective: a logical device and an HBM address in it.
struct CollectiveBuffer {
  int device;
  uint64_t address;
};

class Runtime {
 public:
  // Logical cores: neuron:N groups lnc() physical cores of a chip (set_lnc;
// LNC=2 is trn2's default, 1 here so one device is one physical core).
// Devices of one config are carved, in creation order, out of the chips of
// that config: a chip is made when the existing ones have no lnc free
// consecutive cores left.
//
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

  // Physical cores per logical core for cores created from now on; 0 = the
  // default config's chip.default_lnc. The initial value is 1 (one physical
  // core per device). Throws RuntimeError if lnc does not divide chip.cores
  // of the default config.
  void set_lnc(int lnc);
  int lnc();

  // In-place sum all-reduce of `elements` `dtype` values at each buffer (one
  // per logical device, >= 2 devices of one chip), as a ring over DMA
  // (sim/model/all_reduce.h's step kernels): 2(N-1) steps, each an SPMD
  // launch over the devices' first physical cores, submitted on `stream` of
  // every participating device (it starts when each of them is free). Each
  // step is a record on each device; the handle is device 0's last step,
  // which completes when the all-reduce does. Charges host.runtime_submit per
  // step (and host.kernel_load per new step kernel). Throws RuntimeError for
  // a device given twice, devices of different chips, a bad stream or a buffer
  // outside a live allocation; SimError for a bad element count (not a
  // positive multiple of 128 x N).
  ExecutionHandle AllReduce(const std::vector<CollectiveBuffer>& buffers, int64_t elements, DType dtype,
                            int stream = NeuronCoreDevice::kDefaultStream);

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
  // A chip of `config` with `lnc` consecutive free physical cores, and those
  // cores (marked used). Chips are made as needed, one per config content.
  struct ChipUse {
    std::shared_ptr<Chip> chip;
    uint64_t config_hash = 0;
    std::vector<bool> used;  // per physical core
  };
  std::pair<std::shared_ptr<Chip>, std::vector<int>> TakeCores(const HardwareConfig& config, int lnc);

  std::mutex mu_;                                   // guards the registry, not the cores' work
  std::unique_ptr<HardwareConfig> default_config_;  // loaded lazily: needs the config files
  std::map<int, std::unique_ptr<NeuronCoreDevice>> cores_;
  bool timing_only_ = false;
  int lnc_ = 1;
  std::vector<ChipUse> chips_;  // in creation order
};

}  // namespace rt
}  // namespace nsim
