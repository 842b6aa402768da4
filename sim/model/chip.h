#pragma once
// A simulated chip: chip.cores NeuronCores sharing chip.hbm_stacks HBM stacks,
// built once from a config, with one time base. The chip's device memory is
// one address space: stack s holds [s * stack capacity, (s + 1) * stack
// capacity), and core c's share of its stack (memory.hbm bytes) is its home
// region, where its scratch goes. Per core: SBUF, PSUM, engines, DMA engines,
// semaphores. Shared: the HBM stacks (capacity and bandwidth).
//
// SPMD: Launch runs one program per listed core, all starting together on the
// one SystemC time base, competing for the stacks their tensors live in. A
// launch goes through the chip's scheduler (chip_scheduler.h) like the
// runtime's work: it starts at the host's time (SimClock) once the cores are
// free, and the host waits for it (the clock moves to its end).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/model/execution_result.h"
#include "sim/memory/hbm.h"

namespace nsim {

class ChipScheduler;
struct ExecContext;
class LoadedKernel;
class OnChipMemory;

struct GridResult {
  Picos start = 0;        // time the launch began (SimClock's time line)
  Picos device_time = 0;  // launch to the last core's teardown: the slowest core
  std::vector<int> cores;                 // physical core of each program
  std::vector<ExecutionResult> programs;  // per program, in program_id order (times relative to start)
  // HBM tensors not bound by the caller: shared by all programs, placed in
  // the home region of the first program's core.
  std::map<std::string, uint64_t> scratch_addresses;
};

// How Chip::Run executes a grid (Launch uses the defaults).
struct GridOptions {
  // Unbound HBM tensors go below this address; 0: the top of the first
  // program's core's home region.
  uint64_t scratch_top = 0;
  bool timing_only = false;  // schedule without values (Device::set_timing_only)
  bool allow_races = false;  // races become warnings (Device::set_allow_races)
};

// A grid's programs bound to chip memory, ready to run (Chip::Bind).
struct BoundGrid {
  std::map<std::string, uint64_t> scratch;             // unbound HBM tensors, placed by program 0
  std::vector<std::vector<uint64_t>> addresses;        // per program: per tensor (0 on chip)
  std::vector<std::unique_ptr<ExecContext>> contexts;  // per program
  BoundGrid();
  BoundGrid(BoundGrid&&) noexcept;
  ~BoundGrid();
};

// SPMD programs are copies of one kernel: their HBM tensors must agree, since
// they are one set of buffers in chip memory. Throws SimError naming the first
// program that differs from program 0.
void CheckSameHbmTensors(const std::vector<std::shared_ptr<const LoadedKernel>>& programs);

class Chip {
 public:
  explicit Chip(HardwareConfig config);
  ~Chip();
  Chip(const Chip&) = delete;
  Chip& operator=(const Chip&) = delete;

  const HardwareConfig& config() const { return config_; }
  int cores() const { return static_cast<int>(config_.chip.cores); }
  HbmMemory& hbm() { return *hbm_; }
  // The same memory, for views that share it (Device over a logical core).
  const std::shared_ptr<HbmMemory>& shared_hbm() const { return hbm_; }

  // Core `core`'s home region of device memory and the stack an address is in.
  uint64_t CoreMemoryBase(int core) const;
  uint64_t CoreMemoryBytes() const { return static_cast<uint64_t>(config_.memory.hbm_bytes); }
  uint64_t StackBase(int stack) const { return static_cast<uint64_t>(stack) * config_.chip.hbm_stack_bytes; }
  int StackOfAddress(uint64_t address) const;
  int CoreOfAddress(uint64_t address) const;  // whose home region holds it

  std::shared_ptr<const LoadedKernel> Load(const Kernel& kernel) const;
  // Binds programs[i] to run on core cores[i]: program 0 places the unbound
  // HBM tensors below `scratch_top` (initialised when `values`), the others
  // share them; on-chip tensors are cleared (when `values`). Throws SimError
  // for a bad binding or programs whose HBM tensors differ.
  BoundGrid Bind(const std::vector<std::shared_ptr<const LoadedKernel>>& programs,
                 const std::map<std::string, uint64_t>& bindings, const std::vector<int>& cores, uint64_t scratch_top,
                 bool values);
  // Per kernel tensor: the HBM stack it lives in (-1: on chip).
  std::vector<int> StacksOf(const Kernel& k, const std::vector<uint64_t>& addresses) const;

  // The chip's queue of lazily simulated work (chip_scheduler.h), made on
  // first use: it takes a slot of the process's core and stack models
  // (SimHost::AcquireSlot; SimError when none is left).
  ChipScheduler& scheduler();
  // Core `core`'s SBUF and PSUM, made on first use.
  OnChipMemory& onchip(int core);

  // Runs programs[i] on physical core cores[i] (default: core i), all at once.
  // HBM tensors must be declared alike by every program; `bindings` places
  // them in chip memory, the rest are shared scratch. Throws SimError for a
  // bad grid (too many programs, a core twice, differing HBM tensors) or on
  // a deadlock or error in any core.
  GridResult Launch(const std::vector<std::shared_ptr<const LoadedKernel>>& programs,
                    const std::map<std::string, uint64_t>& bindings = {}, std::vector<int> cores = {});
  // Launch with options; every program's result carries the scratch
  // addresses and the race check. Synchronous: through the scheduler's
  // stream 0 (ChipScheduler::LaunchAndWait).
  GridResult Run(const std::vector<std::shared_ptr<const LoadedKernel>>& programs,
                 const std::map<std::string, uint64_t>& bindings, std::vector<int> cores, const GridOptions& options);

 private:

  HardwareConfig config_;
  std::shared_ptr<HbmMemory> hbm_;
  std::vector<std::unique_ptr<OnChipMemory>> onchip_;  // per core, made on first use
  std::unique_ptr<ChipScheduler> scheduler_;  // destroyed first: it finishes work on the memories above
};

}  // namespace nsim
