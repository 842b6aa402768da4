#pragma once
// A simulated NeuronCore: a hardware config, its device memory (HBM: the
// core's share, memory.hbm) and the SystemC model that executes kernels on
// it. The single-core facade of the chip model (chip.h): a kernel runs on
// core 0 of a one-core chip scheduler with every tensor on stack 0
// (run_alone.h), so its times are those of one core alone on its stack.
// Any number of devices with any configs may exist in one process; an
// execution starts at the host's time and the host waits for it (SimClock).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/model/execution_result.h"
#include "sim/memory/hbm.h"
#include "sim/model/run_progress.h"

namespace nsim {

class LoadedKernel;  // validated, laid out and costed for one config

class Device {
 public:
  explicit Device(HardwareConfig config);
  // A device whose memory is `hbm`, shared with its owner (a logical core of
  // a Chip: the runtime's NeuronCoreDevice::device()).
  Device(HardwareConfig config, std::shared_ptr<HbmMemory> hbm);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const HardwareConfig& config() const { return config_; }
  uint64_t config_hash() const { return config_hash_; }  // ConfigContentHash(config())
  HbmMemory& hbm() { return *hbm_; }

  // Validates the kernel against this config (operands, shapes, dtypes,
  // bounds, SBUF/PSUM capacity) and precomputes its timing. Throws SimError.
  // `known_hash`: KernelHash(kernel) if the caller has it (not computed again).
  std::shared_ptr<const LoadedKernel> Load(const Kernel& kernel,
                                           std::optional<uint64_t> known_hash = std::nullopt) const;

  // Runs a loaded kernel to completion. HBM tensors named in `bindings` live
  // at those device addresses; the others are scratch, initialised from their
  // `init`. Throws SimError on a deadlock (naming engines and semaphores).
  ExecutionResult Execute(const LoadedKernel& kernel,
                          const std::map<std::string, uint64_t>& bindings = {});
  ExecutionResult Execute(const Kernel& kernel,
                          const std::map<std::string, uint64_t>& bindings = {});

  // Races between engines and DMA transfers (model/race_detector.h) fail an
  // execution with a SimError by default; allowed, they become warnings in
  // ExecutionResult::warnings and the run completes (the CLIs' --allow-races).
  void set_allow_races(bool allow) { allow_races_ = allow; }
  bool allow_races() const { return allow_races_; }

  // Timing-only mode (issue 12; off by default): executions schedule every
  // instruction and DMA exactly as with values (same device time, records
  // and traces, bit for bit) but compute, read and write no data, and scratch
  // tensors are not initialised (model/timing_run.h). For sweeps, gates and
  // shapes whose values would take minutes.
  void set_timing_only(bool on) { timing_only_ = on; }
  bool timing_only() const { return timing_only_; }

  // Whether executions keep a record per DMA piece (ExecutionResult::dma; on
  // by default: `--records`, traces and the profiler need them). Off, a long
  // DMA stream costs no memory per piece; every summary stays the same.
  void set_record_dma_pieces(bool on) { record_dma_pieces_ = on; }
  bool record_dma_pieces() const { return record_dma_pieces_; }

  // Called while an execution simulates, every kProgressSlicePs of simulated
  // time (model/run_progress.h); results are the same with or without it.
  void set_progress(ProgressFn progress) { progress_ = std::move(progress); }

 private:
  HardwareConfig config_;
  uint64_t config_hash_;
  std::shared_ptr<HbmMemory> hbm_;
  std::unique_ptr<class OnChipMemory> onchip_;
  bool allow_races_ = false;
  bool timing_only_ = false;
  bool record_dma_pieces_ = true;
  ProgressFn progress_;
};

}  // namespace nsim
