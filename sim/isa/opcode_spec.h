#pragma once
// What each opcode means to the model: which engines may run it, how its
// operands are checked against a config, what it costs, and what it computes.
// One file per instruction family registers its models (SIM_REGISTER_OPCODE:
// validate, cost, execute, flops; names and engines come from opcode_table.h);
// the engine model looks them up by Opcode, never by if-ladder.
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/base/time.h"
#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/memory/access.h"

namespace nsim {

// Timing of one instruction on its engine, precomputed at load time.
struct InstrCost {
  Picos ii = 0;       // the engine may issue its next instruction this long after this one
  Picos latency = 0;  // issue to outputs committed (semaphores signal then)
  int table_set = -1; // ScalarE activation table the instruction needs (-1: none)
  bool perf_mode = false;  // ran in a VectorE performance mode
};

// On-chip operands of one instruction bound once at load time (binding is
// on the per-instruction path; HBM operands are bound per execution). A view
// of the loaded kernel's operand table (model/loaded_kernel.h), whose bound
// accesses are shared by every instruction binding the same one.
struct PreBoundOperand {
  const AccessPattern* ap = nullptr;
  const BoundAccess* bound = nullptr;
};
struct PreBound {
  const PreBoundOperand* operands = nullptr;
  int n = 0;
  const BoundAccess* Find(const AccessPattern* p) const {
    for (int i = 0; i < n; ++i) if (operands[i].ap == p) return operands[i].bound;
    return nullptr;
  }
};

// Scratch vectors whose resize leaves new elements uninitialised: every
// instruction writes its buffers before reading them, and a zero-fill on
// each regrowth cost 6 % of a run (issue 12).
template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;  // default-, not value-initialised
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <class T>
using Scratch = std::vector<T, NoInitAllocator<T>>;
using ScratchFloats = Scratch<float>;

// Where the operands of a running kernel live.
struct ExecContext {
  const Kernel& kernel;
  OnChipMemory& mem;
  HbmMemory& hbm;
  const std::vector<uint64_t>& hbm_address;  // per tensor; HBM tensors only
  ScratchFloats buf[4];                      // reused scratch
  Scratch<uint8_t> bytes;                    // reused scratch of raw element bytes
  const PreBound* prebound = nullptr;        // of the instruction executing
  // False for a timing-only run (model/timing_run.h): instructions are timed
  // but compute nothing, so kernels of real size (a 4096x8192x8192 matmul)
  // can be timed. Timing never depends on values.
  bool compute_values = true;
  // False: the execution keeps no per-DMA-piece record (model/execution_result.h).
  bool record_dma_pieces = true;

  BoundAccess Bind(const AccessPattern& ap) const { return *Resolve(ap); }
  // The pre-bound access when there is one, else one bound now into a
  // scratch slot (valid until the next Resolve): no copy and no construction
  // on the per-instruction path.
  const BoundAccess* Resolve(const AccessPattern& ap) const {
    if (prebound != nullptr) {
      if (const BoundAccess* b = prebound->Find(&ap)) return b;
    }
    bind_scratch = nsim::Bind(kernel, ap, ap.present() ? hbm_address[ap.tensor] : 0);
    return &bind_scratch;
  }
  mutable BoundAccess bind_scratch;
  // Reads an access into buf[slot] as fp32 and returns it.
  ScratchFloats& Read(const AccessPattern& ap, int slot);
  void Write(const AccessPattern& ap, const ScratchFloats& values);
};

// What one family file registers for an opcode: how it is checked, timed,
// computed and counted. Its name, profiler name and engines are
// sim/kernel/opcode_table.h's row, never restated here.
struct OpcodeModel {
  Opcode opcode;
  void (*validate)(const Kernel&, const InstructionView&, const HardwareConfig&);  // throws SimError
  InstrCost (*cost)(const Kernel&, const InstructionView&, const HardwareConfig&);
  void (*execute)(ExecContext&, const InstructionView&);
  int64_t (*flops)(const Kernel&, const InstructionView&);  // arithmetic work, for the profiler
};

// An opcode's table row and its registered model, as the simulator uses them.
struct OpcodeSpec : OpcodeModel {
  const char* name;     // text form, e.g. "tensor_tensor" (OpcodeName)
  const char* hw_name;  // profiler opcode as Neuron tools show it, e.g. "TENSOR_TENSOR" (OpcodeHwName)
  uint32_t engines;     // bit per EngineId allowed to run it (OpcodeEngines)
};

const OpcodeSpec& Spec(Opcode op);

namespace isa_internal {
bool RegisterOpcode(const OpcodeModel& model);
}
#define SIM_REGISTER_OPCODE(var, ...) \
  static const bool var##_registered = ::nsim::isa_internal::RegisterOpcode(__VA_ARGS__)

// Whether every opcode of opcode_table.h has a registered model.
bool AllOpcodesRegistered();

}  // namespace nsim
