#pragma once
// One kernel alone on core 0 of its config's chip, every HBM tensor on stack
// 0 (Device::Execute, ExecuteTimingOnly): a launch like any other, through a
// chip scheduler of its own that models that one core (chip_scheduler.h),
// while the caller's binding says which memory the kernel reads and writes.
#include "sim/config/hw_config.h"
#include "sim/model/chip.h"
#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"
#include "sim/model/run_progress.h"

namespace nsim {

// Starts at the host's time and the host waits for it (SimClock moves to
// its end). Throws SimError as Chip::Launch does (races: unless allowed).
ExecutionResult RunAlone(const HardwareConfig& config, const LoadedKernel& kernel, BoundGrid bound, bool allow_races,
                         const ProgressFn& progress);

}  // namespace nsim
