#include "profiler/synthetic.h"

#include <algorithm>
#include <utility>

#include "sim/base/sim_clock.h"

namespace nsim {
namespace prof {
namespace synthetic {
namespace {

SimClock& Clock() { return SimClock::Get(); }

Picos Us(double us) { return static_cast<Picos>(us * kUs); }

OpInfo InfoFor(const Op& op, int64_t thread_id) {
  OpInfo info;
  info.name = op.name;
  info.overload = op.overload;
  info.thread_id = thread_id;
  if (RecordingShapes()) {
    info.input_shapes = FormatShapes(op.shapes);
    info.input_dtypes = FormatDtypes(std::vector<std::string>(op.shapes.size(), "c10::BFloat16"));
  }
  return info;
}

}  // namespace

InstructionSlice Instruction(const std::string& lane, const std::string& opcode, Picos start,
                             Picos end, int64_t flops) {
  InstructionSlice s;
  s.lane = lane;
  s.opcode = opcode;
  s.start = start;
  s.end = end;
  s.flops = flops;
  return s;
}

DmaSlice HbmDma(const std::string& queue, int dma_engine, int64_t bytes, Picos start, Picos end) {
  DmaSlice d;
  d.queue = queue;
  d.dma_engine = dma_engine;
  d.bytes = bytes;
  d.start = start;
  d.end = end;
  d.touches_hbm = true;
  d.hbm_bytes = bytes;  // one side in HBM
  return d;
}

EngineStats EngineMetrics(const std::string& lane, Picos busy, int64_t instructions, int64_t flops,
                          std::map<std::string, int64_t> by_opcode) {
  EngineStats e;
  e.lane = lane;
  e.busy = busy;
  e.instructions = instructions;
  e.flops = flops;
  e.by_opcode = std::move(by_opcode);
  return e;
}

std::vector<Op> RmsNormEagerOps() {
  const std::vector<int64_t> x = {4, 512};
  const double mul_device = 1164.5 / 3;
  const double mul_host = 60.9 / 3;
  return {
      {"aten::mul", "Tensor", {x, x}, Us(mul_host), Us(mul_device), false, 101},
      {"aten::mean", "dim", {x}, Us(21.1), Us(340.8), false, 102},
      {"aten::add", "Tensor", {{4, 1}, {}}, Us(26.6), Us(434.6), true, 103},
      {"aten::rsqrt", "", {{4, 1}}, Us(15.6), Us(415.0), false, 104},
      {"aten::mul", "Tensor", {x, {4, 1}}, Us(mul_host), Us(mul_device), false, 101},
      {"aten::mul", "Tensor", {x, {512}}, Us(mul_host), Us(mul_device), false, 101},
  };
}

DeviceExecution MakeExecution(uint64_t kernel_hash, int nc, Picos start, Picos device_time) {
  DeviceExecution e;
  e.nc = nc;
  e.start = start;
  e.end = start + device_time;
  e.kernel_hash = kernel_hash;
  e.kernel_name = "kernel_" + std::to_string(kernel_hash);
  e.peak_flops_per_s = 90e12;
  e.peak_hbm_bytes_per_s = 400e9;
  if (!DeviceCaptureWanted(nc)) return e;
  const Picos t = device_time / 20;  // every slice boundary is a multiple of t
  e.kernel_text = "kernel " + e.kernel_name + " {\n  // synthetic\n}\n";
  e.instructions = {
      Instruction("Sync", "dma_copy", 1 * t, 2 * t, 0),
      Instruction("VectorE", "tensor_tensor", 5 * t, 9 * t, 2048),
      Instruction("VectorE", "tensor_tensor", 7 * t, 11 * t, 2048),  // pipelined: overlaps
      Instruction("ScalarE", "activation", 11 * t, 13 * t, 2048),
      Instruction("TensorE", "matmul", 12 * t, 14 * t, 2 * 4 * 512 * 4),
      Instruction("GpSimd", "iota", 13 * t, 14 * t, 0),
      Instruction("Sync", "dma_copy", 14 * t, 15 * t, 0),
  };
  for (InstructionSlice& s : e.instructions) {
    s.args = {{"dst", "t_out[0:4, 0:512]"}, {"src0", "t_in[0:4, 0:512]"}};
  }
  e.dma = {HbmDma("DMA q0", 0, 4096, 2 * t, 5 * t), HbmDma("DMA q0", 1, 4096, 3 * t, 5 * t),
           HbmDma("DMA q1", 2, 4096, 15 * t, 18 * t)};
  e.hbm_read_bytes = 8192;
  e.hbm_write_bytes = 4096;
  // What Summarize makes of those slices.
  e.metrics.engines = {
      EngineMetrics("TensorE", 2 * t, 1, 2 * 4 * 512 * 4, {{"matmul", 1}}),
      EngineMetrics("VectorE", 6 * t, 2, 4096, {{"tensor_tensor", 2}}),  // [5t, 11t]
      EngineMetrics("ScalarE", 2 * t, 1, 2048, {{"activation", 1}}),
      EngineMetrics("GpSimd", 1 * t, 1, 0, {{"iota", 1}}),
      EngineMetrics("Sync", 2 * t, 2, 0, {{"dma_copy", 2}}),
  };
  e.metrics.dma_queues = {{"DMA q0", 8192, 2, 3 * t}, {"DMA q1", 4096, 1, 3 * t}};
  e.metrics.dma_bytes = 12288;
  e.metrics.dma_transfers = 3;
  e.metrics.active_time = 17 * t;  // [1t, 18t]
  return e;
}

void Backend::Launch(const Op& op, uint64_t op_id) {
  if (op.copy_scalar_in) {
    RuntimeCall copy{"nrta_tensor_write", nc_, stream_, op_id, Clock().now(), 0, 2};
    Clock().Advance(kCopyCallTime);
    copy.end = Clock().now();
    RecordRuntimeCall(copy);
  }
  if (op.device_time == 0) return;
  RuntimeCall exec_call{"nrta_execute_schedule", nc_, stream_, op_id, Clock().now(), 0, 0};
  Clock().Advance(kExecuteCallTime);
  exec_call.end = Clock().now();
  const uint64_t launch = RecordRuntimeCall(exec_call);
  // In-order queue: the execution starts when queued and the core is free.
  const Picos start = std::max(Clock().now(), device_free_);
  DeviceExecution e = MakeExecution(op.kernel_hash, nc_, start, op.device_time);
  e.op_correlation_id = op_id;
  e.launch_id = launch;
  device_free_ = e.end;
  RecordDeviceExecution(std::move(e));
}

void Backend::Run(const Op& op, int64_t thread_id) {
  const uint64_t id = BeginOp(InfoFor(op, thread_id), Clock().now());
  Clock().Advance(op.host_time / 2);
  Launch(op, id);
  Clock().Advance(op.host_time - op.host_time / 2);
  EndOp(id, Clock().now());
}

void Backend::RunCompiled(const std::string& region, const Op& fused) {
  OpInfo info;
  info.name = region;
  info.kind = OpKind::kCompiledRegion;
  const uint64_t id = BeginOp(info, Clock().now());
  Clock().Advance(fused.host_time / 2);
  Launch(fused, id);
  Clock().Advance(fused.host_time - fused.host_time / 2);
  EndOp(id, Clock().now());
}

void Backend::Synchronize() { Clock().AdvanceTo(device_free_); }

}  // namespace synthetic
}  // namespace prof
}  // namespace nsim
