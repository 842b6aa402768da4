#pragma once
// A Recording is what one record window (start_trace .. stop_trace) captured,
// frozen at the moment its trace was exported. The table, the Chrome trace,
// the device summary and the NEFF/NTFF files are all pure functions of it.
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/events.h"
#include "sim/base/time.h"

namespace nsim {
namespace prof {

struct RecordedOp {
  OpInfo info;
  uint64_t correlation_id = 0;
  Picos start = 0;
  Picos end = -1;  // -1 while open
  bool complete() const { return end >= start; }
};

struct RecordedRuntimeCall {
  RuntimeCall call;
  uint64_t launch_id = 0;
};

struct RecordedExecution {
  DeviceExecution exec;
  bool captured = false;  // DEVICE mode held its slices and kernel text
};

// What the layers pushed during one record window, before sealing.
struct RawEvents {
  std::vector<RecordedOp> ops;
  std::vector<RecordedRuntimeCall> runtime_calls;
  std::vector<RecordedExecution> executions;
  std::vector<MemoryEvent> memory;
};

// How a Profile was set up; decides what the outputs show.
struct RecordingSettings {
  std::string use_device;             // "neuron" with ProfilerActivity::PrivateUse1, else ""
  bool correlate_device_time = true;  // NEURON columns in the table
  bool runtime_lanes = true;          // ProfileMode::kRuntime
  bool device_lanes = true;           // ProfileMode::kDevice
  bool record_shapes = false;
};

struct Recording {
  RecordingSettings settings;
  std::vector<RecordedOp> ops;  // complete ops only, in begin order
  std::vector<RecordedRuntimeCall> runtime_calls;
  std::vector<RecordedExecution> executions;  // completed by export_time
  std::vector<MemoryEvent> memory;
  Picos start_time = 0;
  Picos export_time = 0;  // simulated clock when the trace was exported
  // Executions still running at export_time: the host never synchronised, so
  // (as on real hardware) they are missing from every output.
  int64_t dropped_executions = 0;
  Picos dropped_device_time = 0;
};

// Freezes `raw` at `export_time`: drops ops still open and device executions
// that had not completed by then (counting them).
Recording Seal(RawEvents raw, const RecordingSettings& settings, Picos start_time,
               Picos export_time);

// The warning a Profile emits for a Recording with dropped executions, or ""
// when nothing was dropped.
std::string MissingSyncWarning(const Recording& recording);

}  // namespace prof
}  // namespace nsim
