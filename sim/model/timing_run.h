#pragma once
// Times a kernel without computing its values: every instruction and DMA is
// scheduled exactly as in Device::Execute, but nothing is read or written.
// For kernels of real size (the validation suite's 4096x8192x8192 matmuls),
// whose values would take minutes to compute; timing never depends on values
// (tests/validation check that both paths give identical times).
#include "sim/config/hw_config.h"
#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"
#include "sim/model/run_progress.h"

namespace nsim {

// `kernel` must have been loaded for `config` (Device::Load or LoadedKernel).
// `hbm_address` (per tensor, as Device::Execute binds them; empty: all 0)
// only labels the run: no timing depends on an address. `record_dma_pieces`:
// as Device::set_record_dma_pieces.
ExecutionResult ExecuteTimingOnly(const HardwareConfig& config, const LoadedKernel& kernel,
                                  const std::vector<uint64_t>& hbm_address = {}, const ProgressFn& progress = {},
                                  bool record_dma_pieces = true);

}  // namespace nsim
