#include "tools/nsim_report.h"

#include <cstdio>
#include <sstream>

#include "sim/isa/opcode_spec.h"
#include "sim/kernel/printer.h"

namespace nsim {
namespace {

double Ns(Picos p) { return PicosToNanos(p); }

nlohmann::json EngineReport(const EngineSummary& s, Picos device_time) {
  nlohmann::json by_opcode = nlohmann::json::object();
  for (int op = 0; op < kNumOpcodes; ++op) {
    if (s.by_opcode[op] > 0) by_opcode[Spec(static_cast<Opcode>(op)).name] = s.by_opcode[op];
  }
  return {{"busy_ns", Ns(s.busy)},
          {"utilization", device_time > 0 ? static_cast<double>(s.busy) / static_cast<double>(device_time) : 0.0},
          {"instructions", s.instructions},
          {"by_opcode", by_opcode}};
}

nlohmann::json DmaReport(const ExecutionResult& r) {
  nlohmann::json engines = nlohmann::json::array(), queues = nlohmann::json::object();
  int64_t bytes = 0;
  for (size_t e = 0; e < r.dma_engines.size(); ++e) {
    const DmaEngineSummary& s = r.dma_engines[e];
    bytes += s.bytes;
    if (s.transfers == 0) continue;
    engines.push_back({{"engine", e}, {"bytes", s.bytes}, {"transfers", s.transfers}, {"descriptors", s.descriptors},
                       {"busy_ns", Ns(s.busy)},
                       {"bandwidth_gbps", s.busy > 0 ? static_cast<double>(s.bytes) / Ns(s.busy) : 0.0}});
  }
  for (const auto& [q, s] : r.dma_queues) {
    queues[std::to_string(q)] = {{"bytes", s.bytes}, {"transfers", s.transfers}, {"busy_ns", Ns(s.busy)},
                                 {"bandwidth_gbps", s.busy > 0 ? static_cast<double>(s.bytes) / Ns(s.busy) : 0.0}};
  }
  const double device_ns = Ns(r.device_time);
  return {{"bytes", bytes},
          {"hbm_bytes_read", r.hbm_bytes_read},
          {"hbm_bytes_written", r.hbm_bytes_written},
          {"bandwidth_over_device_time_gbps", device_ns > 0 ? static_cast<double>(bytes) / device_ns : 0.0},
          {"engines", engines},
          {"queues", queues}};
}

}  // namespace

nlohmann::json ExecutionReport(const HardwareConfig& config, const Kernel& kernel, const ExecutionResult& r) {
  nlohmann::json engines = nlohmann::json::object();
  for (int e = 0; e < kNumEngines; ++e) {
    engines[EngineLaneName(static_cast<EngineId>(e))] = EngineReport(r.engines[e], r.device_time);
  }
  return {{"kernel", kernel.name},
          {"kernel_hash", std::to_string(r.kernel_hash)},
          {"config", config.name},
          {"device_time_ns", Ns(r.device_time)},
          {"launch_ns", Ns(r.launch)},
          {"teardown_ns", Ns(r.teardown)},
          {"instructions", kernel.NumInstructions()},
          {"engines", engines},
          {"dma", DmaReport(r)}};
}

std::string FormatReport(const nlohmann::json& j) {
  std::ostringstream os;
  char line[256];
  os << "kernel " << j["kernel"].get<std::string>() << " (hash " << j["kernel_hash"].get<std::string>() << ") on "
     << j["config"].get<std::string>() << "\n";
  std::snprintf(line, sizeof line, "device time: %.3f us (launch %.1f ns, teardown %.1f ns), %d instructions\n\n",
                j["device_time_ns"].get<double>() / 1000.0, j["launch_ns"].get<double>(), j["teardown_ns"].get<double>(),
                j["instructions"].get<int>());
  os << line;
  std::snprintf(line, sizeof line, "%-8s %12s %8s %8s  %s\n", "engine", "busy (ns)", "util", "instrs", "by opcode");
  os << line;
  for (const auto& [name, e] : j["engines"].items()) {
    std::string ops;
    for (const auto& [op, n] : e["by_opcode"].items()) ops += op + "=" + std::to_string(n.get<int64_t>()) + " ";
    std::snprintf(line, sizeof line, "%-8s %12.3f %7.1f%% %8lld  %s\n", name.c_str(), e["busy_ns"].get<double>(),
                  100.0 * e["utilization"].get<double>(), static_cast<long long>(e["instructions"].get<int64_t>()),
                  ops.c_str());
    os << line;
  }
  const auto& d = j["dma"];
  std::snprintf(line, sizeof line, "\nDMA: %lld bytes (HBM read %lld, written %lld), %.2f GB/s over device time\n",
                static_cast<long long>(d["bytes"].get<int64_t>()), static_cast<long long>(d["hbm_bytes_read"].get<int64_t>()),
                static_cast<long long>(d["hbm_bytes_written"].get<int64_t>()),
                d["bandwidth_over_device_time_gbps"].get<double>());
  os << line;
  std::snprintf(line, sizeof line, "%-10s %10s %10s %12s %10s\n", "dma engine", "bytes", "transfers", "busy (ns)", "GB/s");
  os << line;
  for (const auto& e : d["engines"]) {
    std::snprintf(line, sizeof line, "%-10d %10lld %10lld %12.3f %10.2f\n", e["engine"].get<int>(),
                  static_cast<long long>(e["bytes"].get<int64_t>()), static_cast<long long>(e["transfers"].get<int64_t>()),
                  e["busy_ns"].get<double>(), e["bandwidth_gbps"].get<double>());
    os << line;
  }
  for (const auto& [q, s] : d["queues"].items()) {
    std::snprintf(line, sizeof line, "queue %-4s %10lld %10lld %12.3f %10.2f\n", q.c_str(),
                  static_cast<long long>(s["bytes"].get<int64_t>()), static_cast<long long>(s["transfers"].get<int64_t>()),
                  s["busy_ns"].get<double>(), s["bandwidth_gbps"].get<double>());
    os << line;
  }
  return os.str();
}

std::string FormatRecords(const Kernel& kernel, const ExecutionResult& r) {
  std::ostringstream os;
  char line[128];
  for (const InstructionRecord& rec : r.instructions) {
    const Instruction& in = kernel.streams[static_cast<int>(rec.engine)][rec.index];
    std::snprintf(line, sizeof line, "%12.3f %12.3f  %-7s ", Ns(rec.start), Ns(rec.end), EngineLaneName(rec.engine));
    os << line << FormatInstruction(kernel, in) << "\n";
  }
  for (const DmaRecord& d : r.dma) {
    std::snprintf(line, sizeof line, "%12.3f %12.3f  DMA%-4d queue %d, %lld B, %lld descriptors (from %s #%d)\n",
                  Ns(d.start), Ns(d.end), d.dma_engine, d.queue, static_cast<long long>(d.bytes),
                  static_cast<long long>(d.descriptors), EngineName(d.trigger_engine), d.index);
    os << line;
  }
  return os.str();
}

}  // namespace nsim
