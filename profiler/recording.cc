#include "profiler/recording.h"

#include <unordered_map>
#include <utility>

#include "profiler/time_format.h"

namespace nsim {
namespace prof {
namespace {

// Each captured instruction names the op that launched its execution and,
// when its kernel names no source of its own (a torch or C++ op's kernel),
// takes that op's: the user's line that called the op.
void AttributeToOps(Recording& rec) {
  std::unordered_map<uint64_t, const RecordedOp*> op_of;
  for (const RecordedOp& op : rec.ops) op_of[op.correlation_id] = &op;
  for (RecordedExecution& e : rec.executions) {
    auto it = op_of.find(e.exec.op_correlation_id);
    if (it == op_of.end()) continue;
    const OpInfo& op = it->second->info;
    for (InstructionSlice& s : e.exec.instructions) {
      s.aten_op = op.name;
      if (s.source.empty()) s.source = op.source;
    }
  }
}

}  // namespace

Recording Seal(RawEvents raw, const RecordingSettings& settings, Picos start_time,
               Picos export_time) {
  Recording rec;
  rec.settings = settings;
  rec.start_time = start_time;
  rec.export_time = export_time;
  rec.runtime_calls = std::move(raw.runtime_calls);
  rec.memory = std::move(raw.memory);
  rec.ops.reserve(raw.ops.size());
  for (RecordedOp& op : raw.ops) {
    // An op still open when the window closed has no duration to report
    // (PyTorch drops such ranges as well).
    if (op.complete()) rec.ops.push_back(std::move(op));
  }
  rec.executions.reserve(raw.executions.size());
  for (RecordedExecution& e : raw.executions) {
    if (e.exec.end <= export_time) {
      rec.executions.push_back(std::move(e));
    } else {
      ++rec.dropped_executions;
      rec.dropped_device_time += e.exec.end - e.exec.start;
    }
  }
  AttributeToOps(rec);
  return rec;
}

std::string MissingSyncWarning(const Recording& rec) {
  if (rec.dropped_executions == 0) return "";
  return "Profiler: " + std::to_string(rec.dropped_executions) +
         " device execution(s) with " + FormatTime(PicosToMicros(rec.dropped_device_time)) +
         " of NEURON time had not completed when the trace was exported at " +
         FormatTime(PicosToMicros(rec.export_time)) +
         " on the simulated clock; they are missing from the NEURON columns and the "
         "trace. Synchronize the device (torch.neuron.synchronize()) before the step ends.";
}

}  // namespace prof
}  // namespace nsim
