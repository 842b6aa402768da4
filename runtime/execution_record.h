#pragma once
// What the runtime did for one request: a kernel execution
// (nrta_execute_schedule) or a host<->device copy (nrta_tensor_write /
// nrta_tensor_read), with its place on the simulated clock on both sides:
// the host's API call and the device's execution. The profiler builds its
// neuron_rt (API call) and neuron_hw (execution) lanes from these.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel_cache.h"
#include "sim/base/time.h"
#include "sim/config/hw_config.h"
#include "sim/model/execution_result.h"

namespace nsim {
namespace rt {

enum class RecordKind : uint8_t {
  kExecution,       // a kernel run
  kCopyToDevice,    // host -> HBM
  kCopyFromDevice,  // HBM -> host
  kCopyToCore,      // HBM -> HBM of another (or the same) core of the chip
};

// The runtime API call each kind stands for.
constexpr const char* kExecuteApi = "nrta_execute_schedule";
constexpr const char* kWriteApi = "nrta_tensor_write";
constexpr const char* kReadApi = "nrta_tensor_read";
constexpr const char* kCopyApi = "nrta_tensor_copy";

struct ExecutionRecord {
  RecordKind kind = RecordKind::kExecution;
  const char* api = kExecuteApi;  // kExecuteApi, kWriteApi or kReadApi
  int core = 0;                   // logical NeuronCore ("neuron:<core>")
  const HardwareConfig* config = nullptr;  // of that core (lives as long as the core)
  int stream = 0;
  uint64_t correlation_id = 0;  // the framework op that caused it; 0 if none
  // What an observer noted at submission (RuntimeObserver::OnSubmit), for use
  // at completion when that context is gone: the profiler's op in progress.
  uint64_t submit_context = 0;

  // Simulated host clock. [submit_start, submit_end) is the runtime call's own
  // cost (host.runtime_submit or host.copy_setup); host_return is when control
  // went back to the caller: submit_end, except for a read, which waits for
  // its bytes (device_end).
  Picos submit_start = 0;
  Picos submit_end = 0;
  Picos host_return = 0;
  // Simulated device clock (the same clock): when the item ran. Filled when
  // the item completes on the chip, with the results below: `completed` says
  // so (the runtime's waits, records() and observers only show completed ones).
  Picos device_start = 0;
  Picos device_end = 0;
  bool completed = false;

  // Executions only.
  uint64_t kernel_hash = 0;
  std::string kernel_name;
  KernelRef kernel;
  std::shared_ptr<const ExecutionResult> result;  // programs[0]
  std::vector<int> cores;                          // physical cores of the chip used, program order
  std::vector<std::shared_ptr<const ExecutionResult>> programs;  // one per core
  std::vector<KernelRef> program_kernels;  // the kernel each core ran (per-core trace lanes)
  int64_t wall_ns = 0;  // real time the simulator took to simulate it; never simulated time
  Picos capture = 0;    // device time added by device capture (config capture.*), included in device_end
  bool captured = false;  // device capture was on for the core (DeviceCaptureOn) when it ran

  // Copies only.
  uint64_t device_address = 0;
  uint64_t bytes = 0;
  int peer_core = -1;            // kCopyToCore: the destination's logical core
  uint64_t peer_address = 0;     // kCopyToCore: the destination address

  bool is_copy() const { return kind != RecordKind::kExecution; }
};

// Returned by ExecuteAsync and the copies; shared with the core's history.
using ExecutionHandle = std::shared_ptr<const ExecutionRecord>;

}  // namespace rt
}  // namespace nsim
