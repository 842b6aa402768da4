#include "runtime/profiling/profiler_bridge.h"

#include <string>
#include <utility>

#include "profiler/engine_lanes.h"
#include "profiler/events.h"
#include "sim/base/intervals.h"
#include "runtime/capture_setting.h"
#include "runtime/profiling/device_capture.h"
#include "runtime/observer.h"

namespace nsim {
namespace rt {

namespace {

// One core's simulator metrics under its lanes ("core1/VectorE"), core by
// core in program order. Only the chip-wide active time is not a sum: the
// union of every core's activity, from the slices of the same records.
void AddCoreMetrics(int core, const prof::DeviceMetrics& from, prof::DeviceMetrics* into) {
  for (prof::EngineStats e : from.engines) {
    e.lane = prof::CoreLane(core, e.lane);
    into->engines.push_back(std::move(e));
  }
  for (prof::DmaQueueStats q : from.dma_queues) {
    q.queue = prof::CoreLane(core, q.queue);
    into->dma_queues.push_back(std::move(q));
  }
  into->dma_bytes += from.dma_bytes;
  into->dma_transfers += from.dma_transfers;
}

Picos ChipActiveTime(const prof::DeviceExecution& e) {
  Intervals all;
  for (const prof::InstructionSlice& s : e.instructions) all.emplace_back(s.start, s.end);
  for (const prof::DmaSlice& d : e.dma) all.emplace_back(d.start, d.end);
  return IntervalsLength(MergeIntervals(std::move(all)));
}

// An execution on several physical cores (LNC>1): every core's instructions
// and DMA pieces, on that core's lanes ("core1/VectorE"); peak rates of all
// of them together.
void CaptureCores(const ExecutionRecord& r, prof::DeviceExecution* e) {
  for (size_t i = 0; i < r.programs.size(); ++i) {
    prof::DeviceExecution core;
    CaptureExecution(r.program_kernels[i]->loaded->kernel(), *r.programs[i], *r.config, &core);
    if (i == 0) e->kernel_text = core.kernel_text;
    for (prof::InstructionSlice& s : core.instructions) {
      s.lane = prof::CoreLane(r.cores[i], s.lane);
      e->instructions.push_back(std::move(s));
    }
    for (prof::DmaSlice& d : core.dma) {
      d.queue = prof::CoreLane(r.cores[i], d.queue);
      e->dma.push_back(std::move(d));
    }
    AddCoreMetrics(r.cores[i], core.metrics, &e->metrics);
    e->peak_flops_per_s += core.peak_flops_per_s;
    e->peak_hbm_bytes_per_s += core.peak_hbm_bytes_per_s;
  }
  e->metrics.active_time = ChipActiveTime(*e);
}

}  // namespace

// Records reach the profiler when they complete on the chip, after the
// framework op that submitted them may have ended: the op is noted at
// submission (OnSubmit, in submit_context).
void ReportToProfiler(const ExecutionRecord& r) {
  if (!prof::Enabled()) return;
  const uint64_t op = r.submit_context;
  prof::RuntimeCall call;
  call.name = r.api;
  call.nc = r.core;
  call.stream = r.stream;
  call.op_correlation_id = op;
  call.start = r.submit_start;
  call.end = r.submit_end;
  call.bytes = static_cast<int64_t>(r.bytes);
  const uint64_t launch = prof::RecordRuntimeCall(std::move(call));
  if (r.is_copy()) return;
  prof::DeviceExecution e;
  e.op_correlation_id = op;
  e.launch_id = launch;
  e.nc = r.core;
  e.start = r.device_start;
  e.end = r.device_end;
  e.kernel_hash = r.kernel_hash;
  e.kernel_name = r.kernel_name;
  for (const auto& p : r.programs) {  // cheap: kept even without capture
    e.hbm_read_bytes += p->hbm_bytes_read;
    e.hbm_write_bytes += p->hbm_bytes_written;
  }
  if (r.captured && prof::DeviceCaptureWanted(r.core)) {
    if (r.programs.size() > 1) {
      CaptureCores(r, &e);
    } else {
      CaptureExecution(r.kernel->loaded->kernel(), *r.result, *r.config, &e);
    }
  }
  prof::RecordDeviceExecution(std::move(e));
}

namespace {

class ProfilerForwarder : public RuntimeObserver {
 public:
  void OnExecution(const ExecutionRecord& r) override { ReportToProfiler(r); }
  void OnCopy(const ExecutionRecord& r) override { ReportToProfiler(r); }
  void OnSubmit(ExecutionRecord& r) override {
    if (prof::Enabled()) r.submit_context = prof::CurrentCorrelationId();
  }
};

// The profiler's capture choice, passed down when a profile (de)activates.
void PushCaptureSetting() {
  bool cores[kMaxCaptureCores];
  for (int i = 0; i < kMaxCaptureCores; ++i) cores[i] = prof::DeviceCaptureWanted(i);
  SetDeviceCapture(cores);
}

ProfilerForwarder g_forwarder;
const bool g_registered = (AddRuntimeObserver(&g_forwarder), prof::AddActivationListener(&PushCaptureSetting), true);

}  // namespace
}  // namespace rt
}  // namespace nsim
