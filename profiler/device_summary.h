#pragma once
// Device summary: what a captured execution (or a whole profile) did on the
// NeuronCore — per-engine busy time and utilisation, instruction counts by
// opcode, DMA bytes and bandwidth, FLOPs, MFU/MBU against the config's peaks
// and a roofline verdict with the numbers that decide it. The counts, busy
// times and bytes are the simulator's metrics the execution carries
// (DeviceExecution::metrics); this file only adds ratios, the roofline and
// sums over executions.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "profiler/events.h"
#include "profiler/recording.h"
#include "sim/base/time.h"

namespace nsim {
namespace prof {

enum class Bound { kCompute, kMemory, kOverhead };
const char* BoundName(Bound bound);  // "compute-bound", "memory-bound", "overhead-bound"

// The three lower bounds on device time; the largest explains the time. It is
// overhead-bound when the time nothing was working (launch, teardown,
// semaphore and DMA latencies) exceeds what either roofline needs.
struct Roofline {
  Bound bound = Bound::kOverhead;
  double arithmetic_intensity = 0;  // FLOPs per HBM byte (infinity without HBM traffic)
  double ridge_point = 0;           // peak FLOP/s / peak HBM B/s: AI where the roofs meet
  Picos compute_floor = 0;          // FLOPs at peak FLOP/s
  Picos memory_floor = 0;           // HBM bytes at peak HBM bandwidth
  Picos overhead = 0;               // device time with no engine or DMA queue active
};

// One execution, or several summed (SummarizeTotal).
struct DeviceSummary {
  std::string kernel_name;  // "profile total" for a sum
  uint64_t kernel_hash = 0;
  int nc = -1;
  std::string launched_by;  // op name of the launching ATen op / compiled region
  int64_t executions = 0;
  Picos device_time = 0;
  Picos active_time = 0;  // union of all engine and DMA activity
  Picos dma_active_time = 0;  // union of the DMA pieces
  Picos dma_packet_time = 0;  // sum of the DMA pieces' durations
  std::vector<EngineStats> engines;  // canonical lane order
  std::vector<DmaQueueStats> dma_queues;
  int64_t dma_bytes = 0;
  int64_t dma_transfers = 0;
  int64_t hbm_read_bytes = 0;
  int64_t hbm_write_bytes = 0;
  int64_t flops = 0;
  // Σ device_time × peak: what the hardware could have done in that time.
  // Kept as capacities so that sums over executions stay exact ratios.
  double peak_flop_capacity = 0;
  double peak_hbm_byte_capacity = 0;
  Roofline roofline;

  int64_t hbm_bytes() const { return hbm_read_bytes + hbm_write_bytes; }
  double Utilisation(const EngineStats& engine) const;  // busy / device time
  double DmaBytesPerSecond() const;
  double HbmBytesPerSecond() const;
  double Mfu() const;  // FLOPs / peak_flop_capacity
  double Mbu() const;  // HBM bytes / peak_hbm_byte_capacity
  double PeakFlopsPerSecond() const;     // time-weighted over the executions
  double PeakHbmBytesPerSecond() const;
};

DeviceSummary SummarizeExecution(const DeviceExecution& exec);
DeviceSummary SummarizeTotal(const std::vector<DeviceSummary>& executions);

struct ProfileDeviceSummary {
  std::vector<DeviceSummary> executions;  // captured executions in recording order
  DeviceSummary total;
};
ProfileDeviceSummary SummarizeRecording(const Recording& recording);

}  // namespace prof
}  // namespace nsim
