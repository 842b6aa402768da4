#pragma once
// What one kernel execution on the simulated NeuronCore produced: device time,
// a record per instruction and per DMA transfer piece, and per-engine and
// per-DMA-engine/queue summaries. A clean data API for the runtime and the
// profiler; nothing here prints.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/base/time.h"
#include "sim/kernel/kernel.h"
#include "sim/model/execution_metrics.h"
#include "sim/model/interval_set.h"

namespace nsim {

// Times are relative to the start of the execution (0 = launch begins).
// Every execution hands its records out in one canonical order
// (record_order.h): instructions by (start, engine, index), DMA pieces by
// (start, DMA engine), transfer ends by (end, trigger engine, index).
// Why it started when it did (docs/profile-tables.md, "Why it waited"): it
// could issue once the instruction before it on its engine had issued
// (`ready` = start - wait - busy_wait - dependency_wait); from then it waited
// `wait` for its semaphores (the instruction that signalled the last one is
// `signaller`), then `busy_wait` for the engine to take another instruction
// (the previous one's initiation interval), then `dependency_wait` for an
// earlier instruction's outputs to commit (RAW turnaround). The three add up
// to start - ready exactly.
struct InstructionRecord {
  EngineId engine;
  int index;      // position in the kernel's stream for `engine`
  Picos start;    // issue (after its semaphore waits were satisfied)
  Picos end;      // outputs committed
  Picos wait;     // time spent blocked on semaphores before `start`
  Picos busy_wait = 0;        // then: the engine still busy with the previous instruction
  Picos dependency_wait = 0;  // then: a producer's outputs not yet committed
  Picos table_load = 0;       // inside [start, end): ScalarE loading an activation-table set
  int signaller_index = -1;   // the instruction whose signal satisfied its last semaphore wait (-1: none)
  EngineId signaller_engine = EngineId::kTensor;  // its engine (when signaller_index >= 0)
};

// One DMA engine's share of one dma_copy.
struct DmaRecord {
  int dma_engine;
  int queue;                // the trigger engine's queue: DmaQueueName(trigger_engine, queue)
  EngineId trigger_engine;  // the stream that issued the dma_copy (owns the queue)
  int index;                // its position in that stream
  int64_t bytes;
  int64_t descriptors;
  Picos start;  // first byte moves
  Picos end;
  bool touches_hbm;
  // Before `start`: its dma_copy completed at `submitted`; the queue's
  // descriptor processing and the start latency made it ready at `ready`;
  // from then it waited for its DMA engine to finish other pieces.
  Picos submitted = 0;
  Picos ready = 0;
};

// One dma_copy's transfer as a whole (always recorded, one per dma_copy):
// the race detector needs when its last piece ended.
struct DmaTransferRecord {
  EngineId trigger_engine;
  int index;  // position in the trigger engine's stream
  Picos end;  // its last piece ended
};

// The metrics (engines, dma_engines, dma_queues, hbm_bytes_*, ...) are
// Summarize's view of the records below (model/execution_metrics.h).
struct ExecutionResult : ExecutionMetrics {
  uint64_t kernel_hash = 0;
  Picos device_time = 0;  // launch + first issue .. last completion + teardown
  Picos launch = 0;
  Picos teardown = 0;
  std::vector<InstructionRecord> instructions;  // by (start, engine, index)
  // One record per DMA piece, only when the execution was asked to keep them
  // (ExecContext::record_dma_pieces; Device::set_record_dma_pieces, on by
  // default: records, traces and profiler capture need them). Without them a
  // long DMA stream costs no memory per piece; the DMA metrics are
  // accumulated while it runs and are identical either way.
  bool dma_pieces_recorded = true;
  // Without piece records: the union of every piece's [start, end), kept as
  // the pieces end (disjoint blocks, so a long stream costs a few), for
  // Summarize's active time. Empty when the pieces are recorded.
  IntervalSet dma_activity;
  std::vector<DmaRecord> dma;  // by (start, DMA engine)
  std::vector<DmaTransferRecord> dma_copy_ends;  // one per dma_copy, by (end, trigger engine, index)
  // Device addresses of HBM tensors the caller did not bind (scratch), valid
  // until the next execution on the same device.
  std::map<std::string, uint64_t> scratch_addresses;
  // Problems that did not stop the run, one line each (e.g. allowed races).
  std::vector<std::string> warnings;
};

}  // namespace nsim
