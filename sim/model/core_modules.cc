#include "sim/model/core_modules.h"

#include <algorithm>
#include <array>
#include <sstream>

namespace nsim {

CoreModules::CoreModules(const std::string& name)
    : sems_((name + "_semaphores").c_str()), dma_((name + "_dma").c_str(), sems_) {
  for (int e = 0; e < kNumEngines; ++e) {
    const EngineId id = static_cast<EngineId>(e);
    engines_[e] = std::make_unique<EngineModule>((name + "_" + EngineName(id)).c_str(), id, sems_, dma_);
  }
}

void CoreModules::Start(RunState* run) {
  sems_.Reset(run->kernel->kernel().semaphores.size());
  run->result->instructions.reserve(static_cast<size_t>(run->kernel->instruction_count()));
  std::array<bool, kNumEngines> active;
  for (int e = 0; e < kNumEngines; ++e) active[e] = !run->kernel->stream(static_cast<EngineId>(e)).empty();
  run->records.Reset(&run->result->instructions, active, run->result->launch);
  dma_.Reset(run);
  run->sems = &sems_;
  run->wake_engine = [this](EngineId e, Picos at) { engines_[static_cast<int>(e)]->WakeAt(at); };
  for (auto& e : engines_) e->Start(run);
}

void CoreModules::WakeAll() {
  sems_.ForgetWaiters();
  for (auto& e : engines_) e->Wake();
}

bool CoreModules::Stuck() const {
  return std::any_of(engines_.begin(), engines_.end(), [](const auto& e) { return !e->done(); });
}

std::string CoreModules::DeadlockReport(const LoadedKernel& k) const {
  std::ostringstream os;
  os << "deadlock in kernel '" << k.kernel().name << "': no engine can make progress.";
  for (int e = 0; e < kNumEngines; ++e) {
    if (engines_[e]->done()) continue;
    const EngineId id = static_cast<EngineId>(e);
    const LoadedInstruction& li = k.stream(id)[engines_[e]->position()];
    os << "\n  " << EngineName(id) << " is stuck at instruction " << li.index;
    const InstructionView in = k.instruction(li);
    if (in.line > 0) os << " (line " << in.line << ")";
    os << " " << Spec(in.opcode).name << ", waiting for";
    if (IsCoreLink(in.opcode) && sems_.FirstUnsatisfied(k.waits(li), li.num_waits) == nullptr) {
      os << " its pair peer's matching " << Spec(in.opcode).name;
    }
    for (const SemWait& w : in.waits) {
      if (sems_.value(w.sem) >= w.value) continue;
      os << " semaphore '" << k.kernel().semaphores[w.sem] << "' >= " << w.value << " (it is "
         << sems_.value(w.sem) << ")";
    }
  }
  return os.str();
}

}  // namespace nsim
