#pragma once
// The Collector stores the events of one record window. At most one is active
// at a time, process-wide; the free functions of events.h push into it. A
// Profile creates, activates and deactivates collectors as its schedule says.
// Recording is thread-safe; activation is not synchronised with recording
// threads, so a Profile must step and stop from the thread that drives the
// work (as torch.profiler's step() is called from the training loop).
#include <cstdint>
#include <mutex>

#include "profiler/events.h"
#include "profiler/neuron_config.h"
#include "profiler/recording.h"

namespace nsim {
namespace prof {

struct CollectorOptions {
  bool record_ops = true;       // ProfilerActivity::CPU
  bool record_runtime = true;   // CPU or PrivateUse1 (PyTorch puts runtime events in both)
  bool record_device = true;    // ProfilerActivity::PrivateUse1
  bool record_shapes = false;
  bool profile_memory = false;
  bool device_capture = true;   // ProfileMode::kDevice
  NcSelection capture_ncs;
};

class Collector {
 public:
  explicit Collector(CollectorOptions options);
  ~Collector();  // deactivates
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  static Collector* Active() {
    return internal::g_active_collector.load(std::memory_order_acquire);
  }
  // Makes this the collector the layers push into. Throws std::logic_error if
  // another one is active: two profiles at once would split each other's events.
  void Activate();
  void Deactivate();

  const CollectorOptions& options() const { return options_; }
  // Distinguishes collectors for ops that began under another one.
  uint64_t serial() const { return serial_; }

  // Returns the op's slot for CloseOp, or -1 when ops are not recorded.
  int64_t AddOp(OpInfo info, uint64_t correlation_id, Picos start);
  void CloseOp(int64_t slot, Picos end);
  uint64_t AddRuntimeCall(RuntimeCall call);
  void AddDeviceExecution(DeviceExecution exec);
  void AddMemory(const MemoryEvent& event);
  bool DeviceCaptureWanted(int nc) const;

  // Hands the events over (the collector is left empty).
  RawEvents TakeEvents();

 private:
  CollectorOptions options_;
  uint64_t serial_;
  std::mutex mu_;  // layers may record from several host threads
  RawEvents events_;
};

// Process-wide source of correlation and launch ids; unique across
// collectors so a stale id can never match an event of a later window.
uint64_t NextCorrelationId();

}  // namespace prof
}  // namespace nsim
