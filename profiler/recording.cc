#include "profiler/recording.h"

#include <utility>

#include "profiler/time_format.h"

namespace nsim {
namespace prof {

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
