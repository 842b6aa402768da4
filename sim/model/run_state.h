#pragma once
// The state of the one execution in flight on the process's SystemC kernel,
// shared by the engine, DMA and semaphore modules.
#include <exception>
#include <functional>
#include <string>

#include <systemc>

#include "sim/base/time.h"
#include "sim/config/hw_config.h"
#include "sim/isa/opcode_spec.h"
#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {

inline Picos Now() { return static_cast<Picos>(sc_core::sc_time_stamp().value()); }  // resolution is 1 ps
inline sc_core::sc_time Ps(Picos p) { return sc_core::sc_time(static_cast<double>(p), sc_core::SC_PS); }

struct RunState {
  const HardwareConfig* config = nullptr;
  const LoadedKernel* kernel = nullptr;
  ExecContext* ctx = nullptr;
  ExecutionResult* result = nullptr;
  Picos t0 = 0;             // absolute time the execution began
  Picos last_end = 0;       // latest completion so far (absolute)
  bool aborted = false;     // an error or a deadlock ends the run early
  std::exception_ptr error; // first error raised inside a process
  std::function<void()> wake_all;  // wakes every blocked engine

  void NoteEnd(Picos abs_end) {
    if (abs_end > last_end) last_end = abs_end;
  }
  void Fail(std::exception_ptr e) {
    if (!error) error = e;
    Abort();
  }
  void Abort() {
    aborted = true;
    wake_all();
  }
};

}  // namespace nsim
