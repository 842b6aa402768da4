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

namespace nsim {

// Times are relative to the start of the execution (0 = launch begins).
struct InstructionRecord {
  EngineId engine;
  int index;      // position in the kernel's stream for `engine`
  Picos start;    // issue (after its semaphore waits were satisfied)
  Picos end;      // outputs committed
  Picos wait;     // time spent blocked on semaphores before `start`
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
};

// One dma_copy's transfer as a whole (always recorded, one per dma_copy):
// the race detector needs when its last piece ended.
struct DmaTransferRecord {
  EngineId trigger_engine;
  int index;  // position in the trigger engine's stream
  Picos end;  // its last piece ended
};

struct EngineSummary {
  Picos busy = 0;  // sum of instruction (end - start), overlaps counted once
  int64_t instructions = 0;
  std::array<int64_t, kNumOpcodes> by_opcode{};
};

struct DmaEngineSummary {
  int64_t bytes = 0;
  int64_t transfers = 0;
  int64_t descriptors = 0;
  Picos busy = 0;
};

struct DmaQueueSummary {
  int64_t bytes = 0;
  int64_t transfers = 0;  // dma_copy instructions on this queue
  Picos busy = 0;         // union of the queue's transfer pieces over time
};

struct ExecutionResult {
  uint64_t kernel_hash = 0;
  Picos device_time = 0;  // launch + first issue .. last completion + teardown
  Picos launch = 0;
  Picos teardown = 0;
  std::vector<InstructionRecord> instructions;  // in start order after Summarize
  // One record per DMA piece, only when the execution was asked to keep them
  // (ExecContext::record_dma_pieces; Device::set_record_dma_pieces, on by
  // default: records, traces and profiler capture need them). Without them a
  // long DMA stream costs no memory per piece; the summaries below are
  // accumulated while it runs and are identical either way.
  bool dma_pieces_recorded = true;
  std::vector<DmaRecord> dma;
  std::vector<DmaTransferRecord> dma_transfers;  // in completion order
  std::array<EngineSummary, kNumEngines> engines{};
  std::vector<DmaEngineSummary> dma_engines;
  std::map<std::string, DmaQueueSummary> dma_queues;  // by DmaQueueName: each issuing engine owns its queues
  int64_t hbm_bytes_read = 0;
  int64_t hbm_bytes_written = 0;
  // Device addresses of HBM tensors the caller did not bind (scratch), valid
  // until the next execution on the same device.
  std::map<std::string, uint64_t> scratch_addresses;
  // Problems that did not stop the run, one line each (e.g. allowed races).
  std::vector<std::string> warnings;
};

}  // namespace nsim
