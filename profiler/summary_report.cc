#include "profiler/summary_report.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "profiler/explorer_summary.h"
#include "profiler/time_format.h"

namespace nsim {
namespace prof {
namespace {

using nlohmann::json;

std::string Time(Picos ps) { return FormatTime(PicosToMicros(ps)); }
std::string GBps(double bytes_per_s) { return FormatFixed(bytes_per_s / 1e9, 3) + " GB/s"; }
std::string TFlops(double flops_per_s) { return FormatFixed(flops_per_s / 1e12, 3) + " TFLOP/s"; }
std::string Percent(double fraction) { return FormatFixed(100.0 * fraction, 2) + "%"; }
std::string Intensity(double ai) {
  return std::isinf(ai) ? "inf" : FormatFixed(ai, 3);
}

double Ns(Picos ps) { return PicosToNanos(ps); }
double Pct(double fraction) { return 100.0 * fraction; }

// Schema docs/output-schema.md, "device summary": ns as numbers, snake_case,
// neuron-profile's Summary names where one exists.
json RooflineJson(const DeviceSummary& s) {
  const Roofline& r = s.roofline;
  return {{"verdict", BoundName(r.bound)},
          {"mm_arithmetic_intensity",
           std::isinf(r.arithmetic_intensity) ? json(nullptr) : json(r.arithmetic_intensity)},
          {"peak_flops_bandwidth_ratio", r.ridge_point},
          {"compute_floor_ns", Ns(r.compute_floor)},
          {"memory_floor_ns", Ns(r.memory_floor)},
          {"overhead_ns", Ns(r.overhead)},
          {"explanation", RooflineExplanation(s)}};
}

json SummaryToJson(const DeviceSummary& s) {
  json engines = json::array();
  for (const EngineStats& e : s.engines) {
    engines.push_back({{"engine", e.lane},
                       {"active_time_ns", Ns(e.busy)},
                       {"active_time_percent", Pct(s.Utilisation(e))},
                       {"instruction_count", e.instructions},
                       {"model_flops", e.flops},
                       {"by_opcode", e.by_opcode}});
  }
  json queues = json::array();
  for (const DmaQueueStats& q : s.dma_queues) {
    queues.push_back({{"queue", q.queue},
                      {"bytes", q.bytes},
                      {"transfers", q.transfers},
                      {"active_time_ns", Ns(q.busy)}});
  }
  return {{"kernel_name", s.kernel_name},
          {"kernel_hash", std::to_string(s.kernel_hash)},
          {"nc", s.nc},
          {"launched_by", s.launched_by},
          {"executions", s.executions},
          {"total_time_ns", Ns(s.device_time)},
          {"total_active_time_ns", Ns(s.active_time)},
          {"total_active_time_percent", s.device_time > 0 ? Pct(static_cast<double>(s.active_time) / s.device_time) : 0.0},
          {"engines", engines},
          {"dma_queues", queues},
          {"dma_transfer_total_bytes", s.dma_bytes},
          {"dma_transfer_count", s.dma_transfers},
          {"dma_transfer_average_bytes",
           s.dma_transfers > 0 ? static_cast<double>(s.dma_bytes) / s.dma_transfers : 0.0},
          {"dma_bytes_per_s", s.DmaBytesPerSecond()},
          {"hbm_read_bytes", s.hbm_read_bytes},
          {"hbm_write_bytes", s.hbm_write_bytes},
          {"hbm_bytes_per_s", s.HbmBytesPerSecond()},
          {"mbu_estimated_percent", Pct(s.Mbu())},
          {"model_flops", s.flops},
          {"peak_flops_per_s", s.PeakFlopsPerSecond()},
          {"peak_hbm_bytes_per_s", s.PeakHbmBytesPerSecond()},
          {"mfu_estimated_percent", Pct(s.Mfu())},
          {"roofline", RooflineJson(s)},
          {"explorer_summary", ExplorerSummaryJson(s)}};
}

std::string OpcodeList(const EngineStats& e) {
  std::string out;
  for (const auto& [op, n] : e.by_opcode) {
    if (!out.empty()) out += ' ';
    out += op + "=" + std::to_string(n);
  }
  return out;
}

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

void WriteBlock(std::ostringstream& out, const DeviceSummary& s) {
  out << "  device time " << Time(s.device_time) << ", active " << Time(s.active_time)
      << ", nothing active " << Time(s.roofline.overhead) << "\n";
  size_t lane_width = 10;  // per-core lanes of a multi-core execution ("core1/qSyncIO0") are longer
  for (const EngineStats& e : s.engines) lane_width = std::max(lane_width, e.lane.size() + 1);
  for (const DmaQueueStats& q : s.dma_queues) lane_width = std::max(lane_width, q.queue.size() + 1);
  out << "  " << Pad("engine", lane_width) << Pad("busy", 14) << Pad("util", 10) << Pad("instr", 8)
      << Pad("FLOPs", 14) << "  opcodes\n";
  for (const EngineStats& e : s.engines) {
    out << "  " << Pad(e.lane, lane_width) << Pad(Time(e.busy), 14) << Pad(Percent(s.Utilisation(e)), 10)
        << Pad(std::to_string(e.instructions), 8) << Pad(std::to_string(e.flops), 14) << "  "
        << OpcodeList(e) << "\n";
  }
  for (const DmaQueueStats& q : s.dma_queues) {
    out << "  " << Pad(q.queue, lane_width) << Pad(Time(q.busy), 14) << "  " << q.bytes << " bytes in "
        << q.transfers << " transfers\n";
  }
  out << "  DMA " << s.dma_bytes << " bytes at " << GBps(s.DmaBytesPerSecond()) << "; HBM "
      << s.hbm_bytes() << " bytes (read " << s.hbm_read_bytes << ", write " << s.hbm_write_bytes
      << ") at " << GBps(s.HbmBytesPerSecond()) << ", MBU " << Percent(s.Mbu()) << " of "
      << GBps(s.PeakHbmBytesPerSecond()) << "\n";
  out << "  FLOPs " << s.flops << ", MFU " << Percent(s.Mfu()) << " of "
      << TFlops(s.PeakFlopsPerSecond()) << ", arithmetic intensity "
      << Intensity(s.roofline.arithmetic_intensity) << " FLOP/B\n";
  out << "  " << RooflineExplanation(s) << "\n";
}

}  // namespace

std::string RooflineExplanation(const DeviceSummary& s) {
  const Roofline& r = s.roofline;
  std::ostringstream out;
  out << BoundName(r.bound) << ": ";
  const std::string floors = "compute floor " + Time(r.compute_floor) + " (" +
                             std::to_string(s.flops) + " FLOPs at " +
                             TFlops(s.PeakFlopsPerSecond()) + "), memory floor " +
                             Time(r.memory_floor) + " (" + std::to_string(s.hbm_bytes()) +
                             " HBM bytes at " + GBps(s.PeakHbmBytesPerSecond()) + ")";
  switch (r.bound) {
    case Bound::kOverhead:
      out << Time(r.overhead) << " of " << Time(s.device_time)
          << " had no engine or DMA queue active (launch, teardown, latencies), not less than the "
          << floors;
      break;
    case Bound::kCompute:
    case Bound::kMemory:
      out << floors << ", time with nothing active " << Time(r.overhead)
          << "; the larger floor reaches "
          << Percent(s.device_time > 0
                         ? static_cast<double>(std::max(r.compute_floor, r.memory_floor)) /
                               s.device_time
                         : 0)
          << " of the " << Time(s.device_time) << " device time";
      break;
  }
  out << "; arithmetic intensity " << Intensity(r.arithmetic_intensity) << " FLOP/B vs ridge point "
      << FormatFixed(r.ridge_point, 3) << " FLOP/B";
  return out.str();
}

json SummaryDocument(const ProfileDeviceSummary& summary, const json& about) {
  json execs = json::array();
  for (const DeviceSummary& s : summary.executions) execs.push_back(SummaryToJson(s));
  json doc = {{"schema", kSummarySchema},
              {"schema_version", kSchemaVersion},
              {"total_time_ns", PicosToNanos(summary.total.device_time)}};
  for (const auto& [key, value] : about.items()) doc[key] = value;
  doc["executions"] = execs;
  doc["total"] = SummaryToJson(summary.total);
  return doc;
}

std::string SummaryJson(const ProfileDeviceSummary& summary) { return SummaryDocument(summary).dump(2) + "\n"; }

std::string SummaryText(const ProfileDeviceSummary& summary) {
  std::ostringstream out;
  out << "NEURON device summary: " << summary.executions.size() << " captured execution(s), "
      << Time(summary.total.device_time) << " of device time\n";
  for (size_t i = 0; i < summary.executions.size(); ++i) {
    const DeviceSummary& s = summary.executions[i];
    out << "\nExecution " << i + 1 << ": kernel " << s.kernel_name << " (hash " << s.kernel_hash
        << ") on NC" << s.nc;
    if (!s.launched_by.empty()) out << ", launched by " << s.launched_by;
    out << "\n";
    WriteBlock(out, s);
  }
  out << "\nProfile total over " << summary.total.executions << " execution(s)\n";
  WriteBlock(out, summary.total);
  return out.str();
}

}  // namespace prof
}  // namespace nsim
