#include "runtime/profiling/profiler_bridge.h"

#include <string>
#include <utility>

#include "profiler/events.h"
#include "runtime/device_capture.h"
#include "runtime/observer.h"
#include "sim/isa/opcode_spec.h"
#include "sim/kernel/printer.h"

namespace nsim {
namespace rt {
namespace {

prof::InstructionSlice Slice(const Kernel& k, const InstructionRecord& rec) {
  const Instruction& in = k.streams[static_cast<int>(rec.engine)][rec.index];
  const OpcodeSpec& spec = Spec(in.opcode);
  prof::InstructionSlice s;
  s.lane = EngineLaneName(rec.engine);
  s.opcode = spec.name;
  s.args = {{"operands", FormatOperands(k, in)},
            {"hw_opcode", spec.hw_name},
            {"index", std::to_string(rec.index)},
            {"semaphore_wait_ns", std::to_string(PicosToNanos(rec.wait))}};
  if (in.line > 0) s.args.emplace_back("line", std::to_string(in.line));
  s.start = rec.start;
  s.end = rec.end;
  s.flops = spec.flops(k, in);
  return s;
}

prof::DmaSlice Slice(const DmaRecord& d) {
  prof::DmaSlice s;
  s.queue = "DMA q" + std::to_string(d.queue);
  s.dma_engine = d.dma_engine;
  s.bytes = d.bytes;
  s.start = d.start;
  s.end = d.end;
  s.touches_hbm = d.touches_hbm;
  return s;
}

// Dense 16-bit peak: every PE does a multiply-add per TensorE cycle (S1).
double PeakFlopsPerSecond(const HardwareConfig& c) {
  return 2.0 * static_cast<double>(c.tensor.rows * c.tensor.cols) * c.tensor.freq_hz;
}

}  // namespace

void CaptureExecution(const Kernel& k, const ExecutionResult& result, const HardwareConfig& config,
                      prof::DeviceExecution* e) {
  e->kernel_text = FormatKernel(k);
  e->instructions.reserve(result.instructions.size());
  for (const InstructionRecord& rec : result.instructions) e->instructions.push_back(Slice(k, rec));
  for (const DmaRecord& d : result.dma) e->dma.push_back(Slice(d));
  e->peak_flops_per_s = PeakFlopsPerSecond(config);
  e->peak_hbm_bytes_per_s = config.dma.hbm_bytes_per_ns * 1e9;
}

void ReportToProfiler(const ExecutionRecord& r) {
  if (!prof::Enabled()) return;
  prof::RuntimeCall call;
  call.name = r.api;
  call.nc = r.core;
  call.stream = r.stream;
  call.op_correlation_id = prof::CurrentCorrelationId();
  call.start = r.submit_start;
  call.end = r.submit_end;
  call.bytes = static_cast<int64_t>(r.bytes);
  const uint64_t launch = prof::RecordRuntimeCall(std::move(call));
  if (r.is_copy()) return;
  prof::DeviceExecution e;
  e.op_correlation_id = prof::CurrentCorrelationId();
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
