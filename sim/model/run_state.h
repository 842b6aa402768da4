#pragma once
// The state of one core's execution in flight on the process's SystemC
// kernel, shared by that core's engine, DMA and semaphore modules. A grid
// launch has one RunState per core, all in flight together.
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "sim/base/time.h"
#include "sim/config/hw_config.h"
#include "sim/isa/opcode_spec.h"
#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"
#include "sim/model/record_merger.h"

namespace nsim {

class CoreLink;
class HbmArbiter;
class SemaphoreBoard;

inline Picos Now() { return static_cast<Picos>(sc_core::sc_time_stamp().value()); }  // resolution is 1 ps
inline sc_core::sc_time Ps(Picos p) { return sc_core::sc_time(static_cast<double>(p), sc_core::SC_PS); }

struct RunState {
  const HardwareConfig* config = nullptr;
  const LoadedKernel* kernel = nullptr;
  ExecContext* ctx = nullptr;
  ExecutionResult* result = nullptr;
  RecordMerger records;     // the engines' instruction records, into result->instructions
  int core = 0;             // physical core of the chip running this execution
  // Per kernel tensor: the HBM stack it lives in (nullptr for on-chip tensors).
  std::vector<HbmArbiter*> tensor_stack;
  Picos t0 = 0;             // absolute time the execution began
  Picos last_end = 0;       // latest completion so far (absolute)
  bool aborted = false;     // an error or a deadlock ends the run early
  std::exception_ptr error; // first error raised inside a process
  std::function<void()> wake_all;  // wakes every blocked engine
  // Work in flight on this core: engines still running their stream plus DMA
  // transfers not yet complete. The chip scheduler (chip_scheduler.h) learns
  // from `on_quiet` that the execution has nothing left to do.
  int busy = 0;
  std::function<void()> on_quiet;
  // Cross-core instructions (core_link.h): the launch's pairing, this run's
  // program index in it (nullptr: a run with no grid), and what the link
  // needs of this core: its semaphores and a way to wake one of its engines
  // at a time (set by CoreModules::Start).
  CoreLink* link = nullptr;
  int program = 0;
  SemaphoreBoard* sems = nullptr;
  std::function<void(EngineId, Picos)> wake_engine;

  // The stack a dma_copy touching HBM moves its bytes through: its source's
  // when the source is in HBM, else its destination's.
  HbmArbiter& StackOf(const InstructionView& in) const {
    HbmArbiter* src = in.src0.present() ? tensor_stack[in.src0.tensor] : nullptr;
    return src != nullptr ? *src : *tensor_stack[in.dst.tensor];
  }
  void NoteEnd(Picos abs_end) {
    if (abs_end > last_end) last_end = abs_end;
  }
  void Fail(std::exception_ptr e) {
    if (!error) error = e;
    Abort();
  }
  void Busy() { ++busy; }
  void Quiet() {
    if (--busy == 0 && on_quiet) on_quiet();
  }
  void Abort() {
    aborted = true;
    wake_all();
  }
};

}  // namespace nsim
