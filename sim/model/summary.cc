#include "sim/model/summary.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/isa/opcode_spec.h"
#include "sim/model/dma_queue_name.h"
#include "sim/model/interval_union.h"

namespace nsim {
namespace {

// Per engine: busy, instruction and FLOP counts. Returns each engine's merged busy intervals.
std::vector<Intervals> SummarizeEngines(const LoadedKernel& kernel, ExecutionResult* r) {
  std::vector<Intervals> per_engine(kNumEngines);
  for (const InstructionRecord& rec : r->instructions) {
    const int e = static_cast<int>(rec.engine);
    const Instruction& in = kernel.kernel().streams[e][rec.index];
    per_engine[e].push_back({rec.start, rec.end});
    EngineSummary& s = r->engines[e];
    s.instructions++;
    s.by_opcode[static_cast<int>(in.opcode)]++;
    s.flops += Spec(in.opcode).flops(kernel.kernel(), in);
  }
  for (int e = 0; e < kNumEngines; ++e) {
    per_engine[e] = MergeIntervals(std::move(per_engine[e]));
    r->engines[e].busy = IntervalsLength(per_engine[e]);
  }
  return per_engine;
}

// Per DMA engine and per queue: pieces, bytes, busy; the totals and HBM bytes.
// Returns the merged busy intervals of all DMA engines together.
Intervals SummarizeDma(const HardwareConfig& config, const Kernel& kernel, ExecutionResult* r) {
  r->dma_engines.assign(static_cast<size_t>(config.dma.engines), DmaEngineSummary{});
  std::vector<Intervals> engine_iv(config.dma.engines);
  std::map<std::string, Intervals> queue_iv;
  Intervals all;
  for (const DmaRecord& d : r->dma) {
    DmaEngineSummary& s = r->dma_engines[d.dma_engine];
    s.bytes += d.bytes;
    s.transfers++;
    s.descriptors += d.descriptors;
    engine_iv[d.dma_engine].push_back({d.start, d.end});
    const std::string queue = DmaQueueName(d.trigger_engine, d.queue);
    queue_iv[queue].push_back({d.start, d.end});
    DmaQueueSummary& q = r->dma_queues[queue];
    q.bytes += d.bytes;
    q.transfers++;
    r->dma_bytes += d.bytes;
    r->dma_transfers++;
    const HbmBytes hbm = DmaPieceHbmBytes(kernel, d);
    r->hbm_bytes_read += hbm.read;
    r->hbm_bytes_written += hbm.write;
    all.push_back({d.start, d.end});
  }
  for (int e = 0; e < config.dma.engines; ++e) {
    r->dma_engines[e].busy = IntervalsLength(MergeIntervals(std::move(engine_iv[e])));
  }
  for (auto& [q, iv] : queue_iv) r->dma_queues[q].busy = IntervalsLength(MergeIntervals(std::move(iv)));
  return MergeIntervals(std::move(all));
}

}  // namespace

HbmBytes DmaPieceHbmBytes(const Kernel& k, const DmaRecord& piece) {
  const Instruction& in = k.streams[static_cast<int>(piece.trigger_engine)][piece.index];
  const TensorDecl& dst = k.tensors[in.dst.tensor];
  const TensorDecl& src = k.tensors[in.src0.tensor];
  const int64_t elements = piece.bytes / std::max(DTypeSize(dst.dtype), DTypeSize(src.dtype));
  HbmBytes out;
  if (src.space == MemSpace::kHbm) out.read = elements * DTypeSize(src.dtype);
  if (dst.space == MemSpace::kHbm) out.write = elements * DTypeSize(dst.dtype);
  return out;
}

namespace {

// Without piece records the DMA model accumulated the per-DMA-engine and
// per-queue bytes and busy time as the pieces ended (DmaModule::WriteTotals);
// the piece counts and HBM bytes are the loaded kernel's, known at load.
void SummarizeDmaTotals(const HardwareConfig& config, const LoadedKernel& kernel, ExecutionResult* r) {
  if (r->dma_engines.empty()) r->dma_engines.assign(static_cast<size_t>(config.dma.engines), DmaEngineSummary{});
  for (const DmaEngineSummary& e : r->dma_engines) {
    r->dma_bytes += e.bytes;
    r->dma_transfers += e.transfers;
  }
  for (const auto& [queue, pieces] : kernel.dma_queue_transfers()) {
    r->dma_queues[DmaQueueName(queue.first, queue.second)].transfers = pieces;
  }
  r->hbm_bytes_read = kernel.hbm_bytes_read();
  r->hbm_bytes_written = kernel.hbm_bytes_written();
}

}  // namespace

void Summarize(const HardwareConfig& config, const LoadedKernel& kernel, ExecutionResult* r) {
  // The records come sorted (record_order.h: SortRecords runs first).
  Intervals active;
  if (r->dma_pieces_recorded) {
    active = SummarizeDma(config, kernel.kernel(), r);
  } else {
    SummarizeDmaTotals(config, kernel, r);  // active time then counts the engines only (documented)
  }
  for (Intervals& engine : SummarizeEngines(kernel, r)) active.insert(active.end(), engine.begin(), engine.end());
  r->active_time = IntervalsLength(MergeIntervals(std::move(active)));
}

}  // namespace nsim
