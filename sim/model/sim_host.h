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

#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"
#include "sim/model/run_progress.h"

namespace nsim {

struct ExecContext;

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

 private:
  SimHost();
  struct Modules;
  std::unique_ptr<Modules> modules_;
  std::mutex mutex_;
};

}  // namespace nsim
