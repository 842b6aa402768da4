#include "sim/model/sim_host.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "sim/base/error.h"
#include "sim/model/core_modules.h"
#include "sim/model/dma_module.h"
#include "sim/model/hbm_arbiter.h"

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

void CheckDmaFits(const HardwareConfig& config) {
  if (config.dma.engines > DmaModule::kMaxEngines || config.dma.queues_per_engine > DmaModule::kMaxQueues) {
    throw SimError("config '" + config.name + "': the model supports at most " +
                   std::to_string(DmaModule::kMaxEngines) + " DMA engines and " +
                   std::to_string(DmaModule::kMaxQueues) + " queues per engine");
  }
}

}  // namespace

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

ChipSlot SimHost::AcquireSlot(const HardwareConfig& config, int cores) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  CheckDmaFits(config);
  const int stacks = static_cast<int>(config.chip.StackOf(cores - 1)) + 1;
  const int core = FirstFit(core_used_, cores), stack = FirstFit(stack_used_, stacks);
  if (core < 0 || stack < 0) {
    throw SimError("no room for another '" + config.name + "' chip (" + std::to_string(cores) + " cores, " +
                   std::to_string(stacks) + " HBM stacks): the simulation holds " + std::to_string(kMaxCores) +
                   " core and " + std::to_string(kMaxStacks) + " stack models in all, and the chips alive use them");
  }
  for (int i = 0; i < cores; ++i) core_used_[core + i] = true;
  for (int i = 0; i < stacks; ++i) stack_used_[stack + i] = true;
  return ChipSlot{core, stack, cores, stacks};
}

void SimHost::ReleaseSlot(const ChipSlot& slot) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  for (int i = 0; i < slot.cores; ++i) core_used_[slot.first_core + i] = false;
  for (int i = 0; i < slot.stacks; ++i) stack_used_[slot.first_stack + i] = false;
}

CoreModules& SimHost::core_module(int index) { return *modules_->cores.at(index); }
HbmArbiter& SimHost::stack_module(int index) { return *modules_->stacks.at(index); }

void SimHost::ConfigureStacks(const HardwareConfig& config, const ChipSlot& slot) {
  for (int s = 0; s < slot.stacks; ++s) {
    modules_->stacks[slot.first_stack + s]->Configure(config.chip.hbm_stack_bytes_per_ns, config.dma.hbm_bytes_per_ns,
                                                     config.dma.bytes_per_ns);
  }
}

}  // namespace nsim
