#include "profiler/csv_export.h"

#include <cstdio>

namespace nsim {
namespace prof {
namespace {

std::string Cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string Ns(Picos ps) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", PicosToNanos(ps));
  return buf;
}

std::string Row(std::initializer_list<std::string> cells) {
  std::string out;
  for (const std::string& c : cells) out += (out.empty() ? "" : ",") + Cell(c);
  return out + "\n";
}

std::string Arg(const InstructionSlice& s, const std::string& key) {
  for (const auto& [k, v] : s.args)
    if (k == key) return v;
  return "";
}

}  // namespace

std::string InstructionsCsv(const Recording& rec) {
  std::string out = Row({"kernel_name", "kernel_hash", "nc", "lane", "opcode", "start_ns", "end_ns", "duration_ns",
                         "model_flops", "bytes", "dma_engine", "line", "operands"});
  for (const RecordedExecution& e : rec.executions) {
    if (!e.captured) continue;
    const DeviceExecution& x = e.exec;
    const std::string hash = std::to_string(x.kernel_hash), nc = std::to_string(x.nc);
    for (const InstructionSlice& s : x.instructions) {
      out += Row({x.kernel_name, hash, nc, s.lane, s.opcode, Ns(x.start + s.start), Ns(x.start + s.end),
                  Ns(s.end - s.start), std::to_string(s.flops), "", "", Arg(s, "line"), Arg(s, "operands")});
    }
    for (const DmaSlice& d : x.dma) {
      out += Row({x.kernel_name, hash, nc, d.queue, "dma_transfer", Ns(x.start + d.start), Ns(x.start + d.end),
                  Ns(d.end - d.start), "0", std::to_string(d.bytes), std::to_string(d.dma_engine), "", ""});
    }
  }
  return out;
}

std::string OpTableCsv(const EventList& avg) {
  std::string out = Row({"name", "calls", "self_cpu_ns", "cpu_total_ns", "self_device_ns", "device_total_ns", "device_type"});
  for (const EventStats& e : avg.events()) {
    out += Row({e.key, std::to_string(e.count), Ns(e.self_cpu_time_total), Ns(e.cpu_time_total),
                Ns(e.self_device_time_total), Ns(e.device_time_total),
                e.device_type == DeviceType::kCPU ? "cpu" : kBackendName});
  }
  return out;
}

}  // namespace prof
}  // namespace nsim
