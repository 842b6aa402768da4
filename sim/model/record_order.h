#pragma once
// The one order an execution's records are handed out in (issue 12). The
// model produces them in the order its SystemC processes happen to run, and
// SystemC breaks ties between events of the same picosecond by its timed-event
// heap's shape: records that start or end at the same picosecond would come
// out in an order set by every other event in flight. Every path that
// produces an ExecutionResult calls SortRecords once, after the run and
// before anything reads the records (Summarize, the race detector,
// observers, JSON, traces), so the order depends only on the records:
//   - instructions: by (start, engine, index);
//   - DMA pieces: by (start, DMA engine), then (end, trigger engine, index,
//     queue, bytes, descriptors) (a DMA engine serves one piece at a time,
//     so only zero-length pieces can tie on the first two);
//   - dma_copy_ends: by (end, trigger engine, index) (one per dma_copy).
// Sorted in place: no copy of the records (a long run's records are most of
// its memory).
#include "sim/model/execution_result.h"

namespace nsim {

void SortRecords(ExecutionResult* result);

}  // namespace nsim
