#pragma once
// Derives the per-engine, per-DMA-engine and per-queue summaries of an
// ExecutionResult from its records (so the two can never disagree).
#include "sim/config/hw_config.h"
#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {

void Summarize(const HardwareConfig& config, const LoadedKernel& kernel, ExecutionResult* result);

}  // namespace nsim
