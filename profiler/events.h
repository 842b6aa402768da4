#pragma once
// The event API that the frontend (backend/), the runtime (runtime/) and the
// device adapter call while a profile may be recording. Each function costs a
// single load-and-branch when nothing records, so the layers call them
// unconditionally; a caller that must build an expensive payload (shape
// strings, kernel text, instruction slices) checks Enabled(),
// RecordingShapes() or DeviceCaptureWanted() first.
//
// All times are integer picoseconds on the simulated clock (sim/base/sim_clock.h),
// the clock the host and the device share; the profiler never reads or moves
// wall-clock time, and never moves the simulated clock either, so profiling
// cannot change simulated device times.
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/base/time.h"

namespace nsim {
namespace prof {

// ---------------------------------------------------------------- host ops

enum class OpKind : uint8_t {
  kAtenOp,          // an ATen op the frontend dispatches ("aten::mul")
  kCompiledRegion,  // one call of a compiled graph ("Torch-Compiled Region: 0/0")
  kUserAnnotation,  // a record_function-style range, e.g. "ProfilerStep#3"
};

struct OpInfo {
  std::string name;          // "aten::mul"
  std::string overload;      // "Tensor" for aten::mul.Tensor; may be empty
  std::string input_shapes;  // FormatShapes(): "[[4, 512], []]"; only when RecordingShapes()
  std::string input_dtypes;  // FormatDtypes(): "[c10::BFloat16, Scalar]"; likewise
  OpKind kind = OpKind::kAtenOp;
  int64_t thread_id = 0;     // simulated host thread ("framework/TID:<id>")
  // The user's code that called it, innermost frame first ("FILE:LINE FUNCTION < ..."):
  // BeginOp asks the source provider when the caller left it empty.
  std::string source;
};

// Returns the user's call stack on the calling thread in the format of
// OpInfo::source, "" when there is none. A frontend whose users write code
// the C++ side cannot see (torch_nsim: Python) registers one; BeginOp calls
// it, outside any lock, for every op other than a user annotation while a
// profile records ops.
using SourceProvider = std::string (*)();
void SetSourceProvider(SourceProvider provider);

// Opens an op on the calling thread and returns its correlation id, or 0 when
// nothing records. Ops must nest on a thread (close inner ones first); the
// profiler derives Self CPU time from that nesting, as PyTorch does.
uint64_t BeginOp(OpInfo info, Picos start);
// Closes the op BeginOp returned; 0 is ignored so callers need no branch.
void EndOp(uint64_t correlation_id, Picos end);
// The innermost op open on the calling thread (0 if none): what a runtime call
// or device execution issued from here should name as its cause.
uint64_t CurrentCorrelationId();

// "[[4, 512], [512], []]": PyTorch's str() of the input shape list, the text
// the "Input Shapes" column and the trace's "Input Dims" show.
std::string FormatShapes(const std::vector<std::vector<int64_t>>& shapes);
// "[c10::BFloat16, Scalar]".
std::string FormatDtypes(const std::vector<std::string>& dtypes);

// ------------------------------------------------------------ runtime calls

// A Neuron runtime API call made on the host: "nrta_execute_schedule" (queues a
// kernel execution), "nrta_tensor_write" / "nrta_tensor_read" (copies).
struct RuntimeCall {
  std::string name;
  int nc = 0;                      // logical NeuronCore ("neuron_rt/NC:<nc>")
  int stream = 0;                  // framework stream ("framework/Stream:<n>")
  uint64_t op_correlation_id = 0;  // the op that caused it: CurrentCorrelationId()
  Picos start = 0;
  Picos end = 0;
  int64_t bytes = 0;               // copies: bytes moved
};

// Returns the call's launch id (0 when nothing records). Pass it as
// DeviceExecution::launch_id for the execution the call queued, so the trace
// can draw the runtime -> hardware arrow.
uint64_t RecordRuntimeCall(RuntimeCall call);

// --------------------------------------------------------- device executions

// One instruction as it ran on one engine.
// Why an instruction started when it did (sim InstructionRecord): from when
// the instruction before it on its engine issued, it waited `semaphore`
// (released by the instruction `signaller_lane`/`signaller_index`), then
// `engine_busy`, then `dependency`; the three add up to that gap exactly.
// `table_load` lies inside the instruction's own [start, end).
struct WaitCauses {
  Picos semaphore = 0;
  Picos engine_busy = 0;
  Picos dependency = 0;
  Picos table_load = 0;
  std::string signaller_lane;  // "" when no semaphore held it
  int signaller_index = -1;
  Picos total() const { return semaphore + engine_busy + dependency; }
};

struct InstructionSlice {
  std::string lane;    // EngineLaneName(): "TensorE", "VectorE", "ScalarE", "GpSimd", "Sync"
  std::string opcode;  // "matmul", "tensor_tensor", "activation", "dma_copy", ...
  std::vector<std::pair<std::string, std::string>> args;  // operands, shown in the trace
  Picos start = 0;     // relative to DeviceExecution::start
  Picos end = 0;
  int64_t flops = 0;   // useful (model) FLOPs of this instruction
  int index = -1;      // its position in its engine's stream
  // The user's source location, innermost frame first: "FILE:LINE FUNCTION < FILE:LINE FUNCTION ..."
  // (NKI kernels), "" when the kernel names none. At Seal, an instruction
  // without one takes the source of the op that launched its execution.
  std::string source;
  // The ATen op or compiled region that launched its execution (the op of
  // DeviceExecution::op_correlation_id), filled at Seal; "" for a kernel run
  // directly (nsim run, NKI).
  std::string aten_op;
  WaitCauses waits;
};

// One DMA engine's piece of one transfer.
struct DmaSlice {
  std::string queue;   // lane name of the DMA queue, e.g. "DMA q0"
  int dma_engine = 0;
  int64_t bytes = 0;
  Picos start = 0;     // relative to DeviceExecution::start
  Picos end = 0;
  bool touches_hbm = false;
  int64_t hbm_bytes = 0;  // HBM bytes it reads plus writes (sim/model/summary.h DmaPieceHbmBytes)
  int64_t hbm_read_bytes = 0;
  int64_t hbm_write_bytes = 0;
  std::string trigger_lane;  // the dma_copy it moves data for: its engine and index
  int trigger_index = -1;
  Picos submitted = 0;  // that dma_copy completed (relative to DeviceExecution::start)
  Picos ready = 0;      // its queue made it ready; it waited for its DMA engine until `start`
};

// The simulator's per-execution metrics (sim/model/execution_metrics.h, the
// one producer), named as the profiler shows them: the device summary reads
// them and never recomputes them from the slices.
struct EngineStats {
  std::string lane;
  Picos busy = 0;  // union of its instructions' [start, end): overlaps count once
  int64_t instructions = 0;
  int64_t flops = 0;
  std::map<std::string, int64_t> by_opcode;
  int64_t transpose_flops = 0;  // hardware FLOPs of its transposes
  Picos instruction_time = 0;   // sum of its instructions' durations
  std::map<std::string, Picos> time_by_opcode;
};

struct DmaQueueStats {
  std::string queue;
  int64_t bytes = 0;
  int64_t transfers = 0;  // DMA pieces
  Picos busy = 0;         // union of its pieces
};

struct DeviceMetrics {
  std::vector<EngineStats> engines;       // canonical lane order, idle engines included
  std::vector<DmaQueueStats> dma_queues;  // by queue name
  int64_t dma_bytes = 0;
  int64_t dma_transfers = 0;              // DMA pieces
  Picos active_time = 0;                  // union of all engine and DMA activity
  Picos dma_active_time = 0;              // union of the DMA pieces
  Picos dma_packet_time = 0;              // sum of the DMA pieces' durations
};

// One kernel execution on one NeuronCore, recorded as soon as its place on the
// simulated clock is known (at submission, although it completes later): the
// profiler itself decides, at export, whether the host could have seen it
// complete (see Recording::dropped_executions).
struct DeviceExecution {
  uint64_t op_correlation_id = 0;  // the ATen op / compiled region that launched it
  uint64_t launch_id = 0;          // RecordRuntimeCall() of its nrta_execute_schedule
  int nc = 0;
  Picos start = 0;                 // absolute, on the simulated clock
  Picos end = 0;
  uint64_t kernel_hash = 0;        // names the <hash>.neff / <hash>.ntff pair
  std::string kernel_name;

  // Capture payload: fill only when DeviceCaptureWanted(nc). The slices and
  // the metrics come from the same simulator records (runtime/profiling/device_capture.h),
  // so the summary cannot disagree with the trace.
  std::string kernel_text;         // written as <hash>.neff
  std::vector<InstructionSlice> instructions;
  std::vector<DmaSlice> dma;
  DeviceMetrics metrics;
  int64_t hbm_read_bytes = 0;
  int64_t hbm_write_bytes = 0;
  double peak_flops_per_s = 0;     // of the hardware config, for MFU and the roofline
  double peak_hbm_bytes_per_s = 0;
  double dma_engine_bytes_per_s = 0;  // one DMA engine's bandwidth (report findings)
};

// True when a profile records device instructions (ProfileMode::kDevice) for
// this NeuronCore: only then is the capture payload worth building.
bool DeviceCaptureWanted(int nc);
// Calls `listener` whenever a profile starts or stops recording (so whoever
// passes the capture choice down, runtime/profiling, can do so). Listeners
// are never removed; add them at static initialisation.
void AddActivationListener(void (*listener)());
void RecordDeviceExecution(DeviceExecution exec);

// ------------------------------------------------------- host memory events

// An allocation (bytes > 0) or a free (bytes < 0); shown in the trace as a
// "[memory]" instant like PyTorch's, recorded when profile_memory is set.
struct MemoryEvent {
  std::string device = "cpu";  // "cpu" or "neuron"
  int device_id = 0;
  uint64_t addr = 0;
  int64_t bytes = 0;
  int64_t total_allocated = 0;
  int64_t total_reserved = 0;
  int64_t thread_id = 0;
  Picos time = 0;
};
void RecordMemory(const MemoryEvent& event);

// -------------------------------------------------------------- fast check

class Collector;
namespace internal {
extern std::atomic<Collector*> g_active_collector;
}  // namespace internal

// Whether any profile records right now.
inline bool Enabled() {
  return internal::g_active_collector.load(std::memory_order_acquire) != nullptr;
}
// Whether ops should carry input shapes and dtypes (record_shapes=True).
bool RecordingShapes();

// Records the op from construction to destruction, reading the simulated
// clock at both ends. `make_info` runs only when a profile records, so the
// shape strings cost nothing otherwise.
class ScopedOp {
 public:
  template <typename MakeInfo>
  explicit ScopedOp(MakeInfo&& make_info) {
    if (Enabled()) Begin(make_info());
  }
  ~ScopedOp();
  ScopedOp(const ScopedOp&) = delete;
  ScopedOp& operator=(const ScopedOp&) = delete;
  uint64_t correlation_id() const { return correlation_id_; }

 private:
  void Begin(OpInfo info);
  uint64_t correlation_id_ = 0;
};

}  // namespace prof
}  // namespace nsim
