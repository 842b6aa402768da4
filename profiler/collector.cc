#include "profiler/collector.h"

#include <atomic>
#include <stdexcept>
#include <utility>
#include <vector>

namespace nsim {
namespace prof {

namespace internal {
std::atomic<Collector*> g_active_collector{nullptr};
}  // namespace internal

namespace {
std::atomic<uint64_t> g_next_id{1};
std::atomic<uint64_t> g_next_serial{1};

std::vector<void (*)()>& ActivationListeners() {
  static std::vector<void (*)()> listeners;
  return listeners;
}

void NotifyActivation() {
  for (void (*listener)() : ActivationListeners()) listener();
}
}  // namespace

void AddActivationListener(void (*listener)()) { ActivationListeners().push_back(listener); }

uint64_t NextCorrelationId() { return g_next_id.fetch_add(1, std::memory_order_relaxed); }

Collector::Collector(CollectorOptions options)
    : options_(std::move(options)), serial_(g_next_serial.fetch_add(1)) {}

Collector::~Collector() { Deactivate(); }

void Collector::Activate() {
  Collector* expected = nullptr;
  if (!internal::g_active_collector.compare_exchange_strong(expected, this) && expected != this) {
    throw std::logic_error("profiler: another profile is already recording");
  }
  NotifyActivation();
}

void Collector::Deactivate() {
  Collector* expected = this;
  if (internal::g_active_collector.compare_exchange_strong(expected, nullptr)) NotifyActivation();
}

int64_t Collector::AddOp(OpInfo info, uint64_t correlation_id, Picos start) {
  if (!options_.record_ops) return -1;
  if (!options_.record_shapes) {
    // Callers are told to skip shapes unless RecordingShapes(); drop any that
    // arrive anyway so the table matches record_shapes=False exactly.
    info.input_shapes.clear();
    info.input_dtypes.clear();
  }
  std::lock_guard<std::mutex> lock(mu_);
  RecordedOp op;
  op.info = std::move(info);
  op.correlation_id = correlation_id;
  op.start = start;
  events_.ops.push_back(std::move(op));
  return static_cast<int64_t>(events_.ops.size()) - 1;
}

void Collector::CloseOp(int64_t slot, Picos end) {
  std::lock_guard<std::mutex> lock(mu_);
  if (slot >= 0 && slot < static_cast<int64_t>(events_.ops.size())) events_.ops[slot].end = end;
}

uint64_t Collector::AddRuntimeCall(RuntimeCall call) {
  if (!options_.record_runtime) return 0;
  const uint64_t id = NextCorrelationId();
  std::lock_guard<std::mutex> lock(mu_);
  events_.runtime_calls.push_back({std::move(call), id});
  return id;
}

void Collector::AddDeviceExecution(DeviceExecution exec) {
  if (!options_.record_device) return;
  RecordedExecution rec;
  rec.captured = DeviceCaptureWanted(exec.nc);
  if (!rec.captured) {
    // Keep only what RUNTIME mode shows; the payload is DEVICE mode's.
    exec.kernel_text.clear();
    exec.instructions.clear();
    exec.dma.clear();
    exec.metrics = {};
  }
  rec.exec = std::move(exec);
  std::lock_guard<std::mutex> lock(mu_);
  events_.executions.push_back(std::move(rec));
}

void Collector::AddMemory(const MemoryEvent& event) {
  if (!options_.profile_memory || !options_.record_ops) return;
  std::lock_guard<std::mutex> lock(mu_);
  events_.memory.push_back(event);
}

bool Collector::DeviceCaptureWanted(int nc) const {
  return options_.record_device && options_.device_capture && options_.capture_ncs.Contains(nc);
}

RawEvents Collector::TakeEvents() {
  std::lock_guard<std::mutex> lock(mu_);
  RawEvents out = std::move(events_);
  events_ = RawEvents();
  return out;
}

}  // namespace prof
}  // namespace nsim
