#include "profiler/csv_export.h"

#include <cstdio>
#include <map>

#include "profiler/instruction_detail.h"

namespace nsim {
namespace prof {
namespace {

std::string Cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string Row(std::initializer_list<std::string> cells) {
  std::string out;
  for (const std::string& c : cells) out += (out.empty() ? "" : ",") + Cell(c);
  return out + "\n";
}

std::string Value(const std::vector<std::pair<std::string, std::string>>& detail, const std::string& key) {
  for (const auto& [k, v] : detail)
    if (k == key) return v;
  return "";
}

const char* const kDetailColumns[] = {"hw_opcode", "index", "source", "source_stack", "aten_op", "wait_ns", "semaphore_wait_ns",
                                      "engine_busy_wait_ns", "dependency_wait_ns", "table_load_ns",
                                      "signalled_by"};

}  // namespace

std::string InstructionsCsv(const Recording& rec) {
  std::string out = Row({"kernel_name", "kernel_hash", "nc", "lane", "opcode", "start_ns", "end_ns", "duration_ns",
                         "model_flops", "bytes", "dma_engine", "line", "operands", "hw_opcode", "index", "source",
                         "source_stack", "aten_op", "wait_ns", "semaphore_wait_ns", "engine_busy_wait_ns", "dependency_wait_ns",
                         "table_load_ns", "signalled_by", "dma_copy", "hbm_read_bytes", "hbm_write_bytes",
                         "queue_wait_ns", "dma_engine_wait_ns", "execution", "loop"});
  int execution = -1;  // captured executions, numbered: LANE#INDEX names an instruction within one
  for (const RecordedExecution& e : rec.executions) {
    if (!e.captured) continue;
    const std::string ordinal = std::to_string(++execution);
    const DeviceExecution& x = e.exec;
    const std::string hash = std::to_string(x.kernel_hash), nc = std::to_string(x.nc);
    std::map<std::string, const InstructionSlice*> by_name;
    for (const InstructionSlice& s : x.instructions) {
      by_name[InstructionName(s.lane, s.index)] = &s;
      const auto detail = InstructionDetail(s);
      std::string row = Row({x.kernel_name, hash, nc, s.lane, s.opcode, NsText(x.start + s.start), NsText(x.start + s.end),
                             NsText(s.end - s.start), std::to_string(s.flops), "", "", Value(detail, "line"),
                             Value(detail, "operands")});
      row.pop_back();
      for (const char* key : kDetailColumns) row += "," + Cell(Value(detail, key));
      out += row + ",,,,,," + ordinal + "," + Cell(Value(detail, "loop")) + "\n";
    }
    for (const DmaSlice& d : x.dma) {
      const std::string copy = InstructionName(d.trigger_lane, d.trigger_index);
      auto it = by_name.find(copy);
      const std::string stack = it == by_name.end() ? "" : it->second->source;
      const std::string op = it == by_name.end() ? "" : it->second->aten_op;
      const std::string loop = it == by_name.end() ? "" : Value(it->second->args, "loop");
      out += Row({x.kernel_name, hash, nc, d.queue, "dma_transfer", NsText(x.start + d.start), NsText(x.start + d.end),
                  NsText(d.end - d.start), "0", std::to_string(d.bytes), std::to_string(d.dma_engine), "", "", "", "",
                  SourceLine(stack), stack, op, NsText(d.start - d.submitted), "", "", "", "", "", copy,
                  std::to_string(d.hbm_read_bytes), std::to_string(d.hbm_write_bytes), NsText(d.ready - d.submitted),
                  NsText(d.start - d.ready), ordinal, loop});
    }
  }
  return out;
}

std::string OpTableCsv(const EventList& avg) {
  std::string out = Row({"name", "calls", "self_cpu_ns", "cpu_total_ns", "self_device_ns", "device_total_ns", "device_type"});
  for (const EventStats& e : avg.events()) {
    out += Row({e.key, std::to_string(e.count), NsText(e.self_cpu_time_total), NsText(e.cpu_time_total),
                NsText(e.self_device_time_total), NsText(e.device_time_total),
                e.device_type == DeviceType::kCPU ? "cpu" : kBackendName});
  }
  return out;
}

}  // namespace prof
}  // namespace nsim
