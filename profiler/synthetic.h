#pragma once
// Synthetic workloads that drive the event API the way the frontend, the
// runtime and the device adapter will: ops advance the simulated clock by a
// host cost, queue device work asynchronously, and report executions with
// instruction and DMA slices. Used by the tests and the benchmark.
#include <map>
#include <string>
#include <vector>

#include "profiler/events.h"
#include "sim/base/time.h"

namespace nsim {
namespace prof {
namespace synthetic {

constexpr Picos kUs = 1000000;                   // 1 us in ps
constexpr Picos kExecuteCallTime = 5 * kUs;      // nrta_execute_schedule on the host
constexpr Picos kCopyCallTime = 3 * kUs;         // nrta_tensor_write on the host

struct Op {
  std::string name;      // "aten::mul"
  std::string overload;  // "Tensor"
  std::vector<std::vector<int64_t>> shapes;
  Picos host_time = 0;    // the op's own dispatch cost (its Self CPU)
  Picos device_time = 0;  // 0: no device work
  bool copy_scalar_in = false;  // nrta_tensor_write of a CPU scalar first
  uint64_t kernel_hash = 0;
};

// The study's op-by-op RMSNorm: square, mean, add eps (scalar copied in),
// rsqrt, normalise, scale — with the study's host and device times.
std::vector<Op> RmsNormEagerOps();

// Slice builders (times relative to the execution start).
InstructionSlice Instruction(const std::string& lane, const std::string& opcode, Picos start,
                             Picos end, int64_t flops);
DmaSlice HbmDma(const std::string& queue, int dma_engine, int64_t bytes, Picos start, Picos end);
// The metrics the simulator would report with the slices: written out by
// hand (the profiler never derives them), canonical lanes first.
EngineStats EngineMetrics(const std::string& lane, Picos busy, int64_t instructions, int64_t flops,
                          std::map<std::string, int64_t> by_opcode);

// An execution of `device_time` whose slices are a deterministic function of
// it: DMA in, overlapping (pipelined) VectorE instructions, a ScalarE
// activation, a TensorE matmul, DMA out.
DeviceExecution MakeExecution(uint64_t kernel_hash, int nc, Picos start, Picos device_time);

class Backend {
 public:
  explicit Backend(int nc = 0, int stream = 0) : nc_(nc), stream_(stream) {}
  // Eager dispatch: op -> [copy] -> nrta_execute_schedule -> device execution.
  void Run(const Op& op, int64_t thread_id = 0);
  // A compiled region whose graph runs as one execution of `fused`.
  void RunCompiled(const std::string& region, const Op& fused);
  // torch.neuron.synchronize(): the host waits for the device.
  void Synchronize();
  Picos device_free() const { return device_free_; }

 private:
  void Launch(const Op& op, uint64_t op_id);
  int nc_;
  int stream_;
  Picos device_free_ = 0;
};

}  // namespace synthetic
}  // namespace prof
}  // namespace nsim
