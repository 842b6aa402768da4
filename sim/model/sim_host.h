#pragma once
// The process's one SystemC simulation: the chip's hardware, elaborated once.
// SystemC allows a single simulation kernel per process and no new modules
// once it has started, so SimHost builds the largest chip the model supports
// (kMaxCores cores and kMaxStacks HBM stacks) up front; every Chip and Device
// executes through it, one launch at a time, and a launch uses the first
// chip.cores cores and chip.hbm_stacks stacks. All cores of a launch run
// concurrently on the one SystemC time base, sharing the HBM stack models.
#include <memory>
#include <mutex>
#include <vector>

#include "sim/config/hw_config.h"

#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"
#include "sim/model/run_progress.h"

namespace nsim {

struct ExecContext;
class ChipScheduler;
class CoreModules;
class HbmArbiter;

// The modules a chip with a scheduler owns: cores [first_core, first_core +
// chip.cores) and stacks [first_stack, first_stack + chip.hbm_stacks).
struct ChipSlot {
  int first_core = 0;
  int first_stack = 0;
};

// One core's part of a launch.
struct CoreRun {
  int core = 0;                           // physical core of the chip
  const LoadedKernel* kernel = nullptr;
  ExecContext* ctx = nullptr;
  std::vector<int> tensor_stack;          // per kernel tensor: its HBM stack (-1: on chip)
};

class SimHost {
 public:
  static constexpr int kMaxCores = 16;   // = the limit of chip.cores (sim/config/params.cc)
  static constexpr int kMaxStacks = 16;  // = the limit of chip.hbm_stacks

  static SimHost& Get();
  // Runs every core's kernel to completion, all starting now, and returns one
  // result per run (times relative to the common start). Throws SimError on
  // a deadlock or on an error raised while executing (the first, in core order).
  // `progress`, when set, is called every kProgressSlicePs of simulated time.
  std::vector<ExecutionResult> RunGrid(const HardwareConfig& config, const std::vector<CoreRun>& runs,
                                       const ProgressFn& progress = {});
  // One kernel on core 0 with every HBM tensor on stack 0.
  ExecutionResult Run(const HardwareConfig& config, const LoadedKernel& kernel, ExecContext& ctx,
                      const ProgressFn& progress = {});
  // RunGrid and Run are synchronous: they use the modules from core 0 and
  // stack 0, after every chip scheduler has finished its work in flight.

  // Module pool for chips whose work runs lazily (chip_scheduler.h): a slot
  // of chip.cores cores and chip.hbm_stacks stacks, first fit. Throws SimError
  // when the pool (kMaxCores cores, kMaxStacks stacks) has no room left.
  ChipSlot AcquireSlot(const HardwareConfig& config);
  void ReleaseSlot(const HardwareConfig& config, const ChipSlot& slot);
  CoreModules& core_module(int index);
  HbmArbiter& stack_module(int index);
  // The chip's stack bandwidths (shared stack, one core's share, one DMA engine).
  void ConfigureStacks(const HardwareConfig& config, const ChipSlot& slot);
  // Schedulers with work in flight are drained before a synchronous run.
  void Register(ChipScheduler* scheduler);
  void Unregister(ChipScheduler* scheduler);
  // One host thread at a time drives the simulation.
  std::recursive_mutex& mutex() { return mutex_; }

 private:
  SimHost();
  struct Modules;
  std::unique_ptr<Modules> modules_;
  std::recursive_mutex mutex_;
  std::vector<bool> core_used_, stack_used_;  // the slot pool
  std::vector<ChipScheduler*> schedulers_;
};

}  // namespace nsim
