#include "sim/model/summary.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/dma_queue_name.h"

namespace nsim {
namespace {

// The total length of the union of [start, end) intervals fed in order of
// their start, without storing them.
class SortedUnion {
 public:
  void Add(Picos s, Picos e) {
    if (s > cur_end_) {
      if (cur_end_ > cur_start_) total_ += cur_end_ - cur_start_;
      cur_start_ = s;
      cur_end_ = e;
    } else {
      cur_end_ = std::max(cur_end_, e);
    }
  }
  Picos Total() const { return total_ + (cur_end_ > cur_start_ ? cur_end_ - cur_start_ : 0); }

 private:
  Picos total_ = 0, cur_start_ = 0, cur_end_ = -1;
};

// Total length of the union of [start, end) intervals.
Picos UnionLength(std::vector<std::pair<Picos, Picos>> iv) {
  if (!std::is_sorted(iv.begin(), iv.end())) std::sort(iv.begin(), iv.end());
  SortedUnion u;
  for (const auto& [s, e] : iv) u.Add(s, e);
  return u.Total();
}

void MergeByStart(std::vector<InstructionRecord>* records) {
  std::vector<InstructionRecord> per[kNumEngines];
  size_t count[kNumEngines] = {};
  for (const InstructionRecord& rec : *records) count[static_cast<int>(rec.engine)]++;
  for (int e = 0; e < kNumEngines; ++e) per[e].reserve(count[e]);
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

// The per-DMA-engine and per-queue summaries from the piece records.
void SummarizeDmaPieces(const HardwareConfig& config, ExecutionResult* r) {
  r->dma_engines.assign(static_cast<size_t>(config.dma.engines), DmaEngineSummary{});
  const int64_t per_engine = config.dma.queues_per_engine;
  std::vector<std::vector<std::pair<Picos, Picos>>> engine_iv(config.dma.engines);
  std::vector<std::vector<std::pair<Picos, Picos>>> queue_iv(static_cast<size_t>(per_engine * kNumEngines));
  std::vector<int64_t> queue_bytes(queue_iv.size(), 0);
  for (const DmaRecord& d : r->dma) {
    DmaEngineSummary& s = r->dma_engines[d.dma_engine];
    s.bytes += d.bytes;
    s.transfers++;
    s.descriptors += d.descriptors;
    engine_iv[d.dma_engine].push_back({d.start, d.end});
    const size_t key = static_cast<size_t>(static_cast<int64_t>(d.trigger_engine) * per_engine + d.queue);
    queue_iv[key].push_back({d.start, d.end});
    queue_bytes[key] += d.bytes;
  }
  for (int e = 0; e < config.dma.engines; ++e) r->dma_engines[e].busy = UnionLength(std::move(engine_iv[e]));
  for (size_t key = 0; key < queue_iv.size(); ++key) {
    if (queue_iv[key].empty()) continue;
    DmaQueueSummary& q = r->dma_queues[DmaQueueName(static_cast<EngineId>(static_cast<int64_t>(key) / per_engine),
                                                    static_cast<int>(static_cast<int64_t>(key) % per_engine))];
    q.bytes += queue_bytes[key];
    q.busy = UnionLength(std::move(queue_iv[key]));
  }
}

}  // namespace

void Summarize(const HardwareConfig& config, const LoadedKernel& kernel, ExecutionResult* r) {
  // Engines run ahead of SystemC time, so records arrive interleaved across
  // engines but in start order within each: merge the per-engine runs by
  // (start, engine) in linear time; the order is deterministic.
  MergeByStart(&r->instructions);
  SortedUnion busy[kNumEngines];
  for (const InstructionRecord& rec : r->instructions) {
    const int e = static_cast<int>(rec.engine);
    busy[e].Add(rec.start, rec.end);
    r->engines[e].instructions++;
    r->engines[e].by_opcode[static_cast<int>(kernel.stream(rec.engine)[rec.index].opcode)]++;
  }
  for (int e = 0; e < kNumEngines; ++e) r->engines[e].busy = busy[e].Total();

  // Without piece records the DMA model accumulated these as the pieces ended.
  if (r->dma_pieces_recorded) {
    SummarizeDmaPieces(config, r);
  } else if (r->dma_engines.empty()) {
    r->dma_engines.assign(static_cast<size_t>(config.dma.engines), DmaEngineSummary{});
  }
  for (const auto& [queue, n] : kernel.dma_queue_transfers()) {
    r->dma_queues[DmaQueueName(queue.first, queue.second)].transfers += n;
  }
  r->hbm_bytes_read += kernel.hbm_bytes_read();
  r->hbm_bytes_written += kernel.hbm_bytes_written();
}

}  // namespace nsim
