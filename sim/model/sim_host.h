#pragma once
// The process's one SystemC simulation: the chip's hardware, elaborated once.
// SystemC allows a single simulation kernel per process and no new modules
// once it has started, so SimHost builds the largest chip the model supports
// (kMaxCores cores and kMaxStacks HBM stacks) up front, as a pool of module
// slots. Every launch goes through a chip scheduler (chip_scheduler.h), which
// holds a slot; all work in flight runs concurrently on the one SystemC time
// base, a chip's cores sharing its HBM stack models.
#include <memory>
#include <mutex>
#include <vector>

#include "sim/config/hw_config.h"

namespace nsim {

class CoreModules;
class HbmArbiter;

// The modules a chip scheduler owns: cores [first_core, first_core + cores)
// and stacks [first_stack, first_stack + stacks).
struct ChipSlot {
  int first_core = 0;
  int first_stack = 0;
  int cores = 0;
  int stacks = 0;
};

class SimHost {
 public:
  static constexpr int kMaxCores = 16;   // = the limit of chip.cores (sim/config/params.cc)
  static constexpr int kMaxStacks = 16;  // = the limit of chip.hbm_stacks

  static SimHost& Get();

  // A slot for the first `cores` cores of `config`'s chip and the stacks they
  // sit on, first fit. Throws SimError when the pool (kMaxCores cores,
  // kMaxStacks stacks) has no room left or the config's DMA does not fit the model.
  ChipSlot AcquireSlot(const HardwareConfig& config, int cores);
  void ReleaseSlot(const ChipSlot& slot);
  CoreModules& core_module(int index);
  HbmArbiter& stack_module(int index);
  // The slot's stack bandwidths (shared stack, one core's share, one DMA engine).
  void ConfigureStacks(const HardwareConfig& config, const ChipSlot& slot);
  // One host thread at a time drives the simulation.
  std::recursive_mutex& mutex() { return mutex_; }

 private:
  SimHost();
  struct Modules;
  std::unique_ptr<Modules> modules_;
  std::recursive_mutex mutex_;
  std::vector<bool> core_used_, stack_used_;  // the slot pool
};

}  // namespace nsim
