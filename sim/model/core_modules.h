#pragma once
// The SystemC modules of one physical NeuronCore: its semaphores, its DMA
// engines and its five instruction sequencers. Elaborated once per core of
// the largest chip the model supports (SimHost); each execution hands them a
// RunState.
#include <array>
#include <memory>
#include <string>

#include "sim/model/dma_module.h"
#include "sim/model/engine_module.h"
#include "sim/model/run_state.h"
#include "sim/model/semaphore_board.h"

namespace nsim {

class CoreModules {
 public:
  explicit CoreModules(const std::string& name);

  // Resets the core for `run` and wakes its engines at the current time.
  void Start(RunState* run);
  bool Stuck() const;  // an engine has not finished its stream
  void WakeAll();  // the run aborts: every engine still running ends
  // Which engine waits on which semaphore, for a deadlock error.
  std::string DeadlockReport(const LoadedKernel& k) const;

 private:
  SemaphoreBoard sems_;
  DmaModule dma_;
  std::array<std::unique_ptr<EngineModule>, kNumEngines> engines_;
};

}  // namespace nsim
