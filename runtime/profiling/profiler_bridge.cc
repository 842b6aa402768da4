#include "runtime/profiling/profiler_bridge.h"

#include <string>
#include <utility>

#include "profiler/events.h"
#include "runtime/capture_setting.h"
#include "runtime/device_capture.h"
#include "runtime/observer.h"

namespace nsim {
namespace rt {

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
  e.hbm_read_bytes = r.result->hbm_bytes_read;  // cheap: kept even without capture
  e.hbm_write_bytes = r.result->hbm_bytes_written;
  if (r.captured && prof::DeviceCaptureWanted(r.core)) CaptureExecution(r.kernel->loaded->kernel(), *r.result, *r.config, &e);
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
