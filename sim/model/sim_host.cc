#include "sim/model/sim_host.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>

#include "sim/base/error.h"
#include "sim/model/core_modules.h"
#include "sim/model/dma_module.h"
#include "sim/model/hbm_arbiter.h"
#include "sim/model/chip_scheduler.h"
#include "sim/model/record_order.h"
#include "sim/model/summary.h"

namespace nsim {

// Top level: only wiring. Cores are elaborated in order, then the stacks.
struct SimHost::Modules {
  std::vector<std::unique_ptr<CoreModules>> cores;
  std::vector<std::unique_ptr<HbmArbiter>> stacks;
  Modules() {
    for (int c = 0; c < kMaxCores; ++c) cores.push_back(std::make_unique<CoreModules>("core" + std::to_string(c)));
    for (int s = 0; s < kMaxStacks; ++s) {
      stacks.push_back(std::make_unique<HbmArbiter>(("hbm_stack" + std::to_string(s)).c_str()));
    }
  }
};

namespace {

// The model counts time in integer picoseconds and hands SystemC their
// values directly (sc_time_ps.h): its time resolution must be the default,
// 1 ps. A program embedding the model in its own SystemC simulation with
// another resolution gets this error instead of times off by that factor.
void CheckTimeResolution() {
  const sc_core::sc_time resolution = sc_core::sc_get_time_resolution();
  if (resolution != sc_core::sc_time(1, sc_core::SC_PS)) {
    throw SimError("SystemC's time resolution is " + resolution.to_string() +
                   "; the model counts in picoseconds and needs the default, 1 ps (remove the "
                   "sc_set_time_resolution call)");
  }
}

}  // namespace

SimHost::SimHost() : core_used_(kMaxCores, false), stack_used_(kMaxStacks, false) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);  // keep tool output clean
  CheckTimeResolution();
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

void CheckFits(const HardwareConfig& config, const std::vector<CoreRun>& runs) {
  if (config.dma.engines > DmaModule::kMaxEngines || config.dma.queues_per_engine > DmaModule::kMaxQueues) {
    throw SimError("config '" + config.name + "': the model supports at most " +
                   std::to_string(DmaModule::kMaxEngines) + " DMA engines and " +
                   std::to_string(DmaModule::kMaxQueues) + " queues per engine");
  }
  std::array<bool, SimHost::kMaxCores> used{};
  for (const CoreRun& r : runs) {
    if (r.core < 0 || r.core >= config.chip.cores) {
      throw SimError("config '" + config.name + "': no core " + std::to_string(r.core) + " (the chip has " +
                     std::to_string(config.chip.cores) + ")");
    }
    if (used[r.core]) throw SimError("core " + std::to_string(r.core) + " is given two kernels in one launch");
    used[r.core] = true;
  }
}

}  // namespace

namespace {

// Runs the started launch until no events remain, reporting progress between
// slices of simulated time when asked. Exit on starvation: time stops at the
// last event, exactly where one uninterrupted sc_start() would stop.
void Simulate(const std::vector<CoreRun>& runs, const std::vector<RunState>& states, const ProgressFn& progress) {
  if (!progress) {
    sc_core::sc_start();
    return;
  }
  RunProgress p;
  for (const CoreRun& r : runs) p.instructions_total += static_cast<int64_t>(r.kernel->kernel().NumInstructions());
  const Picos start = Now();
  while (sc_core::sc_pending_activity()) {
    sc_core::sc_start(Ps(kProgressSlicePs), sc_core::SC_EXIT_ON_STARVATION);
    p.simulated = Now() - start;
    p.instructions_done = 0;
    for (const RunState& s : states) p.instructions_done += s.records.size();
    progress(p);
  }
}

}  // namespace

std::vector<ExecutionResult> SimHost::RunGrid(const HardwareConfig& config, const std::vector<CoreRun>& runs,
                                              const ProgressFn& progress) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  for (ChipScheduler* s : schedulers_) s->RunUntilIdle();
  CheckFits(config, runs);
  Modules& m = *modules_;
  ConfigureStacks(config, ChipSlot{});
  std::vector<ExecutionResult> results(runs.size());
  std::vector<RunState> states(runs.size());
  // An error or a deadlock on one core ends the whole launch.
  auto abort_all = [&states, &m, &runs] {
    for (size_t i = 0; i < states.size(); ++i) {
      states[i].aborted = true;
      m.cores[runs[i].core]->WakeAll();
    }
  };
  const Picos t0 = Now();
  for (size_t i = 0; i < runs.size(); ++i) {
    const CoreRun& r = runs[i];
    ExecutionResult& result = results[i];
    result.kernel_hash = r.kernel->hash();
    result.launch = config.kernel.launch_ps;
    result.teardown = config.kernel.teardown_ps;
    RunState& run = states[i];
    run.config = &config;
    run.kernel = r.kernel;
    run.ctx = r.ctx;
    run.result = &result;
    run.core = r.core;
    run.t0 = t0;
    run.last_end = t0 + result.launch;
    run.wake_all = abort_all;
    for (int s : r.tensor_stack) run.tensor_stack.push_back(s < 0 ? nullptr : m.stacks.at(s).get());
  }
  for (size_t i = 0; i < runs.size(); ++i) m.cores[runs[i].core]->Start(&states[i]);
  Simulate(runs, states, progress);
  std::string deadlock;
  bool stuck = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!m.cores[runs[i].core]->Stuck()) continue;
    stuck = true;
    if (deadlock.empty() && !states[i].error) deadlock = m.cores[runs[i].core]->DeadlockReport(*runs[i].kernel);
  }
  bool failed = false;
  for (const RunState& s : states) failed = failed || s.error;
  if (stuck || failed) {  // release the stuck processes so the next launch starts clean
    abort_all();
    sc_core::sc_start();
  }
  for (const RunState& s : states) {
    if (s.error) std::rethrow_exception(s.error);
  }
  if (!deadlock.empty()) {
    if (runs.size() > 1) deadlock = "core " + std::to_string(runs[0].core) + ": " + deadlock;
    throw SimError(deadlock);
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    results[i].device_time = states[i].last_end - t0 + results[i].teardown;
    SortRecords(&results[i]);
    Summarize(config, *runs[i].kernel, &results[i]);
  }
  return results;
}

ExecutionResult SimHost::Run(const HardwareConfig& config, const LoadedKernel& kernel, ExecContext& ctx,
                             const ProgressFn& progress) {
  CoreRun run;
  run.kernel = &kernel;
  run.ctx = &ctx;
  for (const TensorDecl& t : kernel.kernel().tensors) run.tensor_stack.push_back(t.space == MemSpace::kHbm ? 0 : -1);
  return std::move(RunGrid(config, {run}, progress)[0]);
}

namespace {

// First index of `n` consecutive free entries, or -1.
int FirstFit(const std::vector<bool>& used, int64_t n) {
  for (int first = 0; first + n <= static_cast<int64_t>(used.size()); ++first) {
    bool free = true;
    for (int i = first; i < first + n && free; ++i) free = !used[i];
    if (free) return first;
  }
  return -1;
}

}  // namespace

ChipSlot SimHost::AcquireSlot(const HardwareConfig& config) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  CheckFits(config, {});
  const int core = FirstFit(core_used_, config.chip.cores), stack = FirstFit(stack_used_, config.chip.hbm_stacks);
  if (core < 0 || stack < 0) {
    throw SimError("no room for another '" + config.name + "' chip (" + std::to_string(config.chip.cores) +
                   " cores, " + std::to_string(config.chip.hbm_stacks) + " HBM stacks): the simulation holds " +
                   std::to_string(kMaxCores) + " core and " + std::to_string(kMaxStacks) +
                   " stack models in all, and the chips alive use them");
  }
  for (int i = 0; i < config.chip.cores; ++i) core_used_[core + i] = true;
  for (int i = 0; i < config.chip.hbm_stacks; ++i) stack_used_[stack + i] = true;
  return ChipSlot{core, stack};
}

void SimHost::ReleaseSlot(const HardwareConfig& config, const ChipSlot& slot) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  for (int i = 0; i < config.chip.cores; ++i) core_used_[slot.first_core + i] = false;
  for (int i = 0; i < config.chip.hbm_stacks; ++i) stack_used_[slot.first_stack + i] = false;
}

CoreModules& SimHost::core_module(int index) { return *modules_->cores.at(index); }
HbmArbiter& SimHost::stack_module(int index) { return *modules_->stacks.at(index); }

void SimHost::ConfigureStacks(const HardwareConfig& config, const ChipSlot& slot) {
  for (int s = 0; s < config.chip.hbm_stacks; ++s) {
    modules_->stacks[slot.first_stack + s]->Configure(config.chip.hbm_stack_bytes_per_ns, config.dma.hbm_bytes_per_ns,
                                                     config.dma.bytes_per_ns);
  }
}

void SimHost::Register(ChipScheduler* scheduler) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  schedulers_.push_back(scheduler);
}

void SimHost::Unregister(ChipScheduler* scheduler) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  schedulers_.erase(std::remove(schedulers_.begin(), schedulers_.end(), scheduler), schedulers_.end());
}

}  // namespace nsim
