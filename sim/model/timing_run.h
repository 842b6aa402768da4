#pragma once
// Times a kernel without computing its values: every instruction and DMA is
// scheduled exactly as in Device::Execute, but nothing is read or written.
// For kernels of real size (the validation suite's 4096x8192x8192 matmuls),
// whose values would take minutes to compute; timing never depends on values
// (tests/validation check that both paths give identical times).
#include <cstdint>
#include <vector>

#include "sim/config/hw_config.h"
#include "sim/model/chip.h"
#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"
#include "sim/model/run_progress.h"

namespace nsim {

// `kernel` must have been loaded for `config` (Device::Load or LoadedKernel).
// `hbm_address` (per tensor, as Device::Execute binds them; empty: placed as
// Device::Execute places unbound tensors) only labels the run: no timing depends on an address. `record_dma_pieces`:
// as Device::set_record_dma_pieces. Races become warnings (allowed).
ExecutionResult ExecuteTimingOnly(const HardwareConfig& config, const LoadedKernel& kernel,
                                  const std::vector<uint64_t>& hbm_address = {}, const ProgressFn& progress = {},
                                  bool record_dma_pieces = true);

// `kernel` bound at `hbm_address` (empty: Device::Execute's scratch layout) in memories a timing-only
// run never touches (kept per thread), for RunAlone.
BoundGrid UntouchedBinding(const HardwareConfig& config, const Kernel& kernel, std::vector<uint64_t> hbm_address,
                           bool record_dma_pieces);

}  // namespace nsim
