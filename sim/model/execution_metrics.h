#pragma once
// The per-execution metrics of one kernel run: engine busy time, instruction
// and FLOP counts, DMA bytes/transfers/busy time per DMA engine and per
// queue, HBM bytes and the time anything was active. Summarize
// (model/summary.h) is their only producer, from the execution's instruction
// and DMA records; `nsim run`, the profiler's device summary (through
// runtime/profiling/device_capture), `nsim compare`, grid reports and the NKI frontend
// all read them, so one kernel never reports two different numbers.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/base/time.h"
#include "sim/kernel/kernel.h"

namespace nsim {

struct EngineSummary {
  Picos busy = 0;  // union of the engine's instruction [start, end): overlaps counted once
  int64_t instructions = 0;
  std::array<int64_t, kNumOpcodes> by_opcode{};
  int64_t flops = 0;  // useful (model) FLOPs of its instructions (OpcodeSpec::flops)
  int64_t transpose_flops = 0;  // hardware FLOPs of its transposes (TransposeFlops)
  Picos instruction_time = 0;   // sum of its instructions' durations: overlaps counted twice
  std::array<Picos, kNumOpcodes> time_by_opcode{};  // instruction_time by opcode
};

// The hardware FLOPs of a TensorE transpose of a [P, F] tile: the PE array
// multiplies it by a [P, P] identity (S11 nc_transpose), 2 * P * P * F, as
// Neuron Explorer's transpose_flops counts transposes.
inline int64_t TransposeFlops(const InstructionView& in) {
  const int64_t p = in.src0.Partitions();
  return 2 * p * p * in.src0.FreeElements();
}

struct DmaEngineSummary {
  int64_t bytes = 0;
  int64_t transfers = 0;  // transfer pieces this DMA engine moved
  int64_t descriptors = 0;
  Picos busy = 0;
};

struct DmaQueueSummary {
  int64_t bytes = 0;
  int64_t transfers = 0;  // transfer pieces on this queue (a dma_copy is one piece per DMA engine it spans)
  Picos busy = 0;         // union of the queue's transfer pieces over time
};

// HBM bytes one DMA piece reads and writes: its elements times the element
// size of each side that lies in HBM (a piece's `bytes` counts its elements at
// the wider of the two dtypes, so a casting copy reads and writes other sizes).
struct HbmBytes {
  int64_t read = 0;
  int64_t write = 0;
};

struct ExecutionMetrics {
  std::array<EngineSummary, kNumEngines> engines{};
  std::vector<DmaEngineSummary> dma_engines;          // by DMA engine index
  std::map<std::string, DmaQueueSummary> dma_queues;  // by DmaQueueName: each issuing engine owns its queues
  int64_t dma_bytes = 0;      // over every DMA piece
  int64_t dma_transfers = 0;  // DMA pieces
  int64_t hbm_bytes_read = 0;
  int64_t hbm_bytes_written = 0;
  Picos active_time = 0;  // union of all instruction and DMA activity
  Picos dma_active_time = 0;  // union of all DMA pieces
  Picos dma_packet_time = 0;  // sum of all DMA pieces' durations (of the DMA engines' busy times)

  int64_t hbm_bytes() const { return hbm_bytes_read + hbm_bytes_written; }
};

// Shares of a device time: busy / device_time and bytes per second; 0 when
// the device time is 0.
double Utilisation(Picos busy, Picos device_time);
double BytesPerSecond(int64_t bytes, Picos device_time);

}  // namespace nsim
