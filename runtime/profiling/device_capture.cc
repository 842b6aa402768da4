#include "runtime/profiling/device_capture.h"

#include <string>
#include <utility>

#include "sim/isa/opcode_spec.h"
#include "sim/kernel/printer.h"
#include "sim/model/dma_queue_name.h"
#include "sim/model/summary.h"

namespace nsim {
namespace rt {
namespace {

prof::InstructionSlice Slice(const Kernel& k, const InstructionRecord& rec) {
  const InstructionView in = k.instruction(rec.engine, rec.index);
  const OpcodeSpec& spec = Spec(in.opcode);
  prof::InstructionSlice s;
  s.lane = EngineLaneName(rec.engine);
  s.opcode = spec.name;
  s.args = {{"operands", FormatOperands(k, in)}, {"hw_opcode", spec.hw_name}};
  if (in.line > 0) s.args.emplace_back("line", std::to_string(in.line));
  // The iteration of a loop-form kernel it belongs to ("i=3,j=0"), so a profile names the loop trip.
  if (std::string loop = k.LoopIndicesAt(static_cast<int>(rec.engine), rec.index); !loop.empty()) {
    s.args.emplace_back("loop", std::move(loop));
  }
  s.start = rec.start;
  s.end = rec.end;
  s.flops = spec.flops(k, in);
  s.index = rec.index;
  s.source = k.SourceAt(in.line);
  s.waits = {rec.wait, rec.busy_wait, rec.dependency_wait, rec.table_load, "", rec.signaller_index};
  if (rec.signaller_index >= 0) s.waits.signaller_lane = EngineLaneName(rec.signaller_engine);
  return s;
}

prof::DmaSlice Slice(const Kernel& k, const DmaRecord& d) {
  const HbmBytes hbm = DmaPieceHbmBytes(k, d);
  prof::DmaSlice s;
  s.queue = DmaQueueName(d.trigger_engine, d.queue);  // the issuing engine's queue, as neuron-profile names it
  s.dma_engine = d.dma_engine;
  s.bytes = d.bytes;
  s.start = d.start;
  s.end = d.end;
  s.touches_hbm = d.touches_hbm;
  s.hbm_bytes = hbm.read + hbm.write;
  s.hbm_read_bytes = hbm.read;
  s.hbm_write_bytes = hbm.write;
  s.trigger_lane = EngineLaneName(d.trigger_engine);
  s.trigger_index = d.index;
  s.submitted = d.submitted;
  s.ready = d.ready;
  return s;
}

// The simulator's metrics (Summarize) under the profiler's names: a
// translation, no arithmetic, so `nsim run`, the profiler and the runtime
// record report the same numbers.
prof::DeviceMetrics Metrics(const ExecutionMetrics& m) {
  prof::DeviceMetrics out;
  for (int e = 0; e < kNumEngines; ++e) {
    const EngineSummary& from = m.engines[e];
    prof::EngineStats stats;
    stats.lane = EngineLaneName(static_cast<EngineId>(e));
    stats.busy = from.busy;
    stats.instructions = from.instructions;
    stats.flops = from.flops;
    stats.transpose_flops = from.transpose_flops;
    stats.instruction_time = from.instruction_time;
    for (int op = 0; op < kNumOpcodes; ++op) {
      if (from.by_opcode[op] > 0) stats.by_opcode[Spec(static_cast<Opcode>(op)).name] = from.by_opcode[op];
      if (from.time_by_opcode[op] > 0) stats.time_by_opcode[Spec(static_cast<Opcode>(op)).name] = from.time_by_opcode[op];
    }
    out.engines.push_back(std::move(stats));
  }
  for (const auto& [queue, q] : m.dma_queues) out.dma_queues.push_back({queue, q.bytes, q.transfers, q.busy});
  out.dma_bytes = m.dma_bytes;
  out.dma_transfers = m.dma_transfers;
  out.active_time = m.active_time;
  out.dma_active_time = m.dma_active_time;
  out.dma_packet_time = m.dma_packet_time;
  return out;
}

// Dense 16-bit peak: every PE does a multiply-add per TensorE cycle (S1).
double PeakFlopsPerSecond(const HardwareConfig& c) {
  return 2.0 * static_cast<double>(c.tensor.rows * c.tensor.cols) * c.tensor.freq_hz;
}

}  // namespace

void CaptureExecution(const Kernel& k, const ExecutionResult& r, const HardwareConfig& config,
                      prof::DeviceExecution* e) {
  e->kernel_text = FormatKernel(k);
  e->instructions.reserve(r.instructions.size());
  for (const InstructionRecord& rec : r.instructions) e->instructions.push_back(Slice(k, rec));
  for (const DmaRecord& d : r.dma) e->dma.push_back(Slice(k, d));
  e->metrics = Metrics(r);
  e->peak_flops_per_s = PeakFlopsPerSecond(config);
  e->peak_hbm_bytes_per_s = config.dma.hbm_bytes_per_ns * 1e9;
  e->dma_engine_bytes_per_s = config.dma.bytes_per_ns * 1e9;
}

}  // namespace rt
}  // namespace nsim
