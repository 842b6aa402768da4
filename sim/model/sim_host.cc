#include "sim/model/sim_host.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <sstream>

#include "sim/base/error.h"
#include "sim/model/dma_module.h"
#include "sim/model/engine_module.h"
#include "sim/model/semaphore_board.h"
#include "sim/model/summary.h"

namespace nsim {

// Top level: only wiring.
struct SimHost::Modules {
  SemaphoreBoard sems{"semaphores"};
  DmaModule dma{"dma", sems};
  std::array<std::unique_ptr<EngineModule>, kNumEngines> engines;
  Modules() {
    for (int e = 0; e < kNumEngines; ++e) {
      const EngineId id = static_cast<EngineId>(e);
      engines[e] = std::make_unique<EngineModule>(EngineName(id), id, sems, dma);
    }
  }
};

SimHost::SimHost() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);  // keep tool output clean
  modules_ = std::make_unique<Modules>();
  // Elaborate and let every process reach its first wait now, so that the
  // first execution's start notifications find them waiting.
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

SimHost& SimHost::Get() {
  static SimHost* host = new SimHost();  // never destroyed: SystemC tears down at exit
  return *host;
}

namespace {

std::string DeadlockReport(const LoadedKernel& k, const std::array<std::unique_ptr<EngineModule>, kNumEngines>& engines,
                           const SemaphoreBoard& sems) {
  std::ostringstream os;
  os << "deadlock in kernel '" << k.kernel().name << "': no engine can make progress.";
  for (int e = 0; e < kNumEngines; ++e) {
    if (engines[e]->done()) continue;
    const EngineId id = static_cast<EngineId>(e);
    const LoadedInstruction& li = k.stream(id)[engines[e]->position()];
    os << "\n  " << EngineName(id) << " is stuck at instruction " << li.index;
    if (li.in->line > 0) os << " (line " << li.in->line << ")";
    os << " " << Spec(li.in->opcode).name << ", waiting for";
    for (const SemWait& w : li.in->waits) {
      if (sems.value(w.sem) >= w.value) continue;
      os << " semaphore '" << k.kernel().semaphores[w.sem] << "' >= " << w.value << " (it is "
         << sems.value(w.sem) << ")";
    }
  }
  return os.str();
}

}  // namespace

ExecutionResult SimHost::Run(const HardwareConfig& config, const LoadedKernel& kernel, ExecContext& ctx) {
  std::lock_guard<std::mutex> lock(mutex_);
  Modules& m = *modules_;
  if (config.dma.engines > DmaModule::kMaxEngines || config.dma.queues_per_engine > DmaModule::kMaxQueues) {
    throw SimError("config '" + config.name + "': the model supports at most " +
                   std::to_string(DmaModule::kMaxEngines) + " DMA engines and " +
                   std::to_string(DmaModule::kMaxQueues) + " queues per engine");
  }
  ExecutionResult result;
  result.kernel_hash = kernel.hash();
  result.launch = config.kernel.launch_ps;
  result.teardown = config.kernel.teardown_ps;
  RunState run;
  run.config = &config;
  run.kernel = &kernel;
  run.ctx = &ctx;
  run.result = &result;
  run.t0 = Now();
  run.last_end = run.t0 + result.launch;
  run.wake_all = [&m] { m.sems.WakeAll(); };
  m.sems.Reset(kernel.kernel().semaphores.size());
  m.dma.Reset(&run);
  for (auto& e : m.engines) e->Start(&run);
  sc_core::sc_start();
  const bool stuck = std::any_of(m.engines.begin(), m.engines.end(), [](const auto& e) { return !e->done(); });
  std::string deadlock;
  if (stuck && !run.error) deadlock = DeadlockReport(kernel, m.engines, m.sems);
  if (stuck || run.error) {  // release the stuck processes so the next run starts clean
    run.Abort();
    sc_core::sc_start();
  }
  if (run.error) std::rethrow_exception(run.error);
  if (!deadlock.empty()) throw SimError(deadlock);
  result.device_time = run.last_end - run.t0 + result.teardown;
  Summarize(config, kernel, &result);
  return result;
}

}  // namespace nsim
