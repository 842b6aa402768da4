#pragma once
// A NEFF's DMA queues belong to the engine that triggers them; the profiler
// names them after it (S6, S14: qSyncIO0, qActIO0, qGpSimdIO0, ...). The
// model keys its queues by (trigger engine, queue), as DmaRecord carries.
#include <string>

#include "sim/kernel/kernel.h"

namespace nsim {

// "qSyncIO0" for queue 0 triggered by Sync; "qActIO1" for ScalarE queue 1.
std::string DmaQueueName(EngineId trigger, int queue);

}  // namespace nsim
