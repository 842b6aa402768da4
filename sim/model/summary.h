#pragma once
// Derives an execution's metrics (model/execution_metrics.h) from its
// instruction and DMA records: the one producer of engine busy time, DMA
// transfer counts, bytes and HBM traffic.
#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/model/execution_result.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {

// The instruction records must be in order of start, as SortRecords leaves
// them (record_order.h); records out of order are a SimError.
void Summarize(const HardwareConfig& config, const LoadedKernel& kernel, ExecutionResult* result);

// The HBM bytes one DMA piece of `kernel` reads and writes (its dma_copy's HBM
// sides); the profiler's HBM bandwidth counter integrates these, so the
// counter and the summary's HBM bytes agree.
HbmBytes DmaPieceHbmBytes(const Kernel& kernel, const DmaRecord& piece);

}  // namespace nsim
