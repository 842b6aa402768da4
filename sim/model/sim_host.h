#pragma once
// The process's one SystemC simulation. SystemC allows a single simulation
// kernel per process and no new modules once it has started, so the model is
// elaborated once, with engines that take their config and kernel per run;
// every Device executes through it, one execution at a time.
#include <memory>
#include <mutex>

#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {

struct ExecContext;

class SimHost {
 public:
  static SimHost& Get();
  // Runs `kernel` to completion and returns its records and summaries.
  // Throws SimError on deadlock or on an error raised while executing.
  ExecutionResult Run(const HardwareConfig& config, const LoadedKernel& kernel, ExecContext& ctx);

 private:
  SimHost();
  struct Modules;
  std::unique_ptr<Modules> modules_;
  std::mutex mutex_;
};

}  // namespace nsim
