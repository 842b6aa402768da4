#include "profiler/device_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace nsim {
namespace prof {
namespace {

double Seconds(Picos ps) { return static_cast<double>(ps) * 1e-12; }

Picos FloorTime(double amount, double per_second) {
  return per_second > 0 ? static_cast<Picos>(std::llround(amount / per_second * 1e12)) : 0;
}

Roofline DecideRoofline(const DeviceSummary& s, Picos compute_floor, Picos memory_floor) {
  Roofline r;
  r.compute_floor = compute_floor;
  r.memory_floor = memory_floor;
  r.overhead = std::max<Picos>(0, s.device_time - s.active_time);
  r.arithmetic_intensity = s.hbm_bytes() > 0
                               ? static_cast<double>(s.flops) / s.hbm_bytes()
                               : std::numeric_limits<double>::infinity();
  r.ridge_point = s.peak_hbm_byte_capacity > 0 ? s.peak_flop_capacity / s.peak_hbm_byte_capacity : 0;
  if (r.overhead >= std::max(compute_floor, memory_floor)) {
    r.bound = Bound::kOverhead;
  } else {
    r.bound = compute_floor >= memory_floor ? Bound::kCompute : Bound::kMemory;
  }
  return r;
}

void AddEngines(std::vector<EngineStats>& into, const std::vector<EngineStats>& from) {
  for (const EngineStats& e : from) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&e](const EngineStats& x) { return x.lane == e.lane; });
    if (it == into.end()) {
      into.push_back(e);
      continue;
    }
    it->busy += e.busy;
    it->instructions += e.instructions;
    it->flops += e.flops;
    it->transpose_flops += e.transpose_flops;
    it->instruction_time += e.instruction_time;
    for (const auto& [op, n] : e.by_opcode) it->by_opcode[op] += n;
    for (const auto& [op, t] : e.time_by_opcode) it->time_by_opcode[op] += t;
  }
}

void AddQueues(std::vector<DmaQueueStats>& into, const std::vector<DmaQueueStats>& from) {
  for (const DmaQueueStats& q : from) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&q](const DmaQueueStats& x) { return x.queue == q.queue; });
    if (it == into.end()) {
      into.push_back(q);
      continue;
    }
    it->bytes += q.bytes;
    it->transfers += q.transfers;
    it->busy += q.busy;
  }
}

}  // namespace

const char* BoundName(Bound bound) {
  switch (bound) {
    case Bound::kCompute: return "compute-bound";
    case Bound::kMemory: return "memory-bound";
    case Bound::kOverhead: return "overhead-bound";
  }
  return "?";
}

double DeviceSummary::Utilisation(const EngineStats& engine) const {
  return device_time > 0 ? static_cast<double>(engine.busy) / device_time : 0;
}
double DeviceSummary::DmaBytesPerSecond() const {
  return device_time > 0 ? dma_bytes / Seconds(device_time) : 0;
}
double DeviceSummary::HbmBytesPerSecond() const {
  return device_time > 0 ? hbm_bytes() / Seconds(device_time) : 0;
}
double DeviceSummary::Mfu() const {
  return peak_flop_capacity > 0 ? flops / peak_flop_capacity : 0;
}
double DeviceSummary::Mbu() const {
  return peak_hbm_byte_capacity > 0 ? hbm_bytes() / peak_hbm_byte_capacity : 0;
}
double DeviceSummary::PeakFlopsPerSecond() const {
  return device_time > 0 ? peak_flop_capacity / Seconds(device_time) : 0;
}
double DeviceSummary::PeakHbmBytesPerSecond() const {
  return device_time > 0 ? peak_hbm_byte_capacity / Seconds(device_time) : 0;
}

DeviceSummary SummarizeExecution(const DeviceExecution& exec) {
  DeviceSummary s;
  s.kernel_name = exec.kernel_name;
  s.kernel_hash = exec.kernel_hash;
  s.nc = exec.nc;
  s.executions = 1;
  s.device_time = exec.end - exec.start;
  s.active_time = exec.metrics.active_time;
  s.dma_active_time = exec.metrics.dma_active_time;
  s.dma_packet_time = exec.metrics.dma_packet_time;
  s.engines = exec.metrics.engines;
  s.dma_queues = exec.metrics.dma_queues;
  s.dma_bytes = exec.metrics.dma_bytes;
  s.dma_transfers = exec.metrics.dma_transfers;
  for (const EngineStats& e : s.engines) s.flops += e.flops;
  s.hbm_read_bytes = exec.hbm_read_bytes;
  s.hbm_write_bytes = exec.hbm_write_bytes;
  s.peak_flop_capacity = Seconds(s.device_time) * exec.peak_flops_per_s;
  s.peak_hbm_byte_capacity = Seconds(s.device_time) * exec.peak_hbm_bytes_per_s;
  s.roofline = DecideRoofline(s, FloorTime(s.flops, exec.peak_flops_per_s),
                              FloorTime(s.hbm_bytes(), exec.peak_hbm_bytes_per_s));
  return s;
}

DeviceSummary SummarizeTotal(const std::vector<DeviceSummary>& executions) {
  DeviceSummary t;
  t.kernel_name = "profile total";
  Picos compute_floor = 0, memory_floor = 0;
  for (const DeviceSummary& s : executions) {
    t.executions += s.executions;
    t.device_time += s.device_time;
    t.active_time += s.active_time;
    t.dma_active_time += s.dma_active_time;
    t.dma_packet_time += s.dma_packet_time;
    AddEngines(t.engines, s.engines);
    AddQueues(t.dma_queues, s.dma_queues);
    t.dma_bytes += s.dma_bytes;
    t.dma_transfers += s.dma_transfers;
    t.hbm_read_bytes += s.hbm_read_bytes;
    t.hbm_write_bytes += s.hbm_write_bytes;
    t.flops += s.flops;
    t.peak_flop_capacity += s.peak_flop_capacity;
    t.peak_hbm_byte_capacity += s.peak_hbm_byte_capacity;
    compute_floor += s.roofline.compute_floor;
    memory_floor += s.roofline.memory_floor;
  }
  // Floors add up because executions run one after another on a core.
  t.roofline = DecideRoofline(t, compute_floor, memory_floor);
  return t;
}

ProfileDeviceSummary SummarizeRecording(const Recording& rec) {
  std::unordered_map<uint64_t, const std::string*> op_names;
  for (const RecordedOp& op : rec.ops) op_names[op.correlation_id] = &op.info.name;
  ProfileDeviceSummary out;
  for (const RecordedExecution& e : rec.executions) {
    if (!e.captured) continue;
    DeviceSummary s = SummarizeExecution(e.exec);
    auto it = op_names.find(e.exec.op_correlation_id);
    if (it != op_names.end()) s.launched_by = *it->second;
    out.executions.push_back(std::move(s));
  }
  out.total = SummarizeTotal(out.executions);
  return out;
}

}  // namespace prof
}  // namespace nsim
