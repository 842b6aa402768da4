#include "sim/model/summary.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/dma_queue_name.h"

namespace nsim {
namespace {

// Total length of the union of [start, end) intervals.
Picos UnionLength(std::vector<std::pair<Picos, Picos>> iv) {
  if (!std::is_sorted(iv.begin(), iv.end())) std::sort(iv.begin(), iv.end());
  Picos total = 0, cur_start = 0, cur_end = -1;
  for (const auto& [s, e] : iv) {
    if (s > cur_end) {
      if (cur_end > cur_start) total += cur_end - cur_start;
      cur_start = s;
      cur_end = e;
    } else {
      cur_end = std::max(cur_end, e);
    }
  }
  if (cur_end > cur_start) total += cur_end - cur_start;
  return total;
}

void MergeByStart(std::vector<InstructionRecord>* records) {
  std::vector<InstructionRecord> per[kNumEngines];
  for (const InstructionRecord& rec : *records) per[static_cast<int>(rec.engine)].push_back(rec);
  size_t next[kNumEngines] = {};
  for (InstructionRecord& out : *records) {
    int best = -1;
    for (int e = 0; e < kNumEngines; ++e) {
      if (next[e] < per[e].size() && (best < 0 || per[e][next[e]].start < per[best][next[best]].start)) best = e;
    }
    out = per[best][next[best]++];
  }
}

}  // namespace

void Summarize(const HardwareConfig& config, const LoadedKernel& kernel, ExecutionResult* r) {
  // Engines run ahead of SystemC time, so records arrive interleaved across
  // engines but in start order within each: merge the per-engine runs by
  // (start, engine) in linear time; the order is deterministic.
  MergeByStart(&r->instructions);
  std::vector<std::pair<Picos, Picos>> per_engine[kNumEngines];
  for (const InstructionRecord& rec : r->instructions) {
    const int e = static_cast<int>(rec.engine);
    per_engine[e].push_back({rec.start, rec.end});
    r->engines[e].instructions++;
    r->engines[e].by_opcode[static_cast<int>(kernel.stream(rec.engine)[rec.index].in->opcode)]++;
  }
  for (int e = 0; e < kNumEngines; ++e) r->engines[e].busy = UnionLength(std::move(per_engine[e]));

  r->dma_engines.assign(static_cast<size_t>(config.dma.engines), DmaEngineSummary{});
  std::vector<std::vector<std::pair<Picos, Picos>>> engine_iv(config.dma.engines);
  std::map<std::string, std::vector<std::pair<Picos, Picos>>> queue_iv;
  for (const DmaRecord& d : r->dma) {
    DmaEngineSummary& s = r->dma_engines[d.dma_engine];
    s.bytes += d.bytes;
    s.transfers++;
    s.descriptors += d.descriptors;
    engine_iv[d.dma_engine].push_back({d.start, d.end});
    const std::string queue = DmaQueueName(d.trigger_engine, d.queue);
    queue_iv[queue].push_back({d.start, d.end});
    r->dma_queues[queue].bytes += d.bytes;
  }
  for (int e = 0; e < config.dma.engines; ++e) r->dma_engines[e].busy = UnionLength(std::move(engine_iv[e]));
  for (auto& [q, iv] : queue_iv) r->dma_queues[q].busy = UnionLength(std::move(iv));
  for (int e = 0; e < kNumEngines; ++e) {
    for (const LoadedInstruction& li : kernel.stream(static_cast<EngineId>(e))) {
      if (li.in->opcode != Opcode::kDmaCopy) continue;
      r->dma_queues[DmaQueueName(static_cast<EngineId>(e), li.in->queue)].transfers++;
      const Kernel& k = kernel.kernel();
      if (k.tensors[li.in->src0.tensor].space == MemSpace::kHbm)
        r->hbm_bytes_read += li.in->src0.NumElements() * DTypeSize(k.tensors[li.in->src0.tensor].dtype);
      if (k.tensors[li.in->dst.tensor].space == MemSpace::kHbm)
        r->hbm_bytes_written += li.in->dst.NumElements() * DTypeSize(k.tensors[li.in->dst.tensor].dtype);
    }
  }
}

}  // namespace nsim
