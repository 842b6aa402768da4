#include "sim/model/summary.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/base/error.h"
#include "sim/isa/opcode_spec.h"
#include "sim/model/dma_queue_name.h"
#include "sim/model/interval_set.h"

namespace nsim {
namespace {

// One side of a dma_copy: its tensor's element size and whether it is in HBM.
struct DmaSide {
  int64_t element_size = 0;
  bool hbm = false;
};

DmaSide SideOf(const TensorDecl& t) { return {DTypeSize(t.dtype), t.space == MemSpace::kHbm}; }

HbmBytes PieceHbmBytes(int64_t piece_bytes, const DmaSide& src, const DmaSide& dst) {
  const int64_t elements = piece_bytes / std::max(dst.element_size, src.element_size);
  HbmBytes out;
  if (src.hbm) out.read = elements * src.element_size;
  if (dst.hbm) out.write = elements * dst.element_size;
  return out;
}

[[noreturn]] void NotInOrder() {
  throw SimError(
      "Summarize: the instruction records are not in order of start (call SortRecords first, record_order.h)");
}

// Per engine: busy time, instruction and FLOP counts; returns the active
// time: the union of every instruction and the DMA blocks `dma` (sorted).
// The records are in order of start (record_order.h), so each union keeps
// only its open block.
Picos SummarizeEngines(const LoadedKernel& kernel, const IntervalSet& dma, ExecutionResult* r) {
  RunningUnion busy[kNumEngines];
  RunningUnion active;
  const IntervalSet::Block* block = dma.begin();
  Picos last_start = INT64_MIN;
  // A run that issued every instruction (each issues once) ran the kernel's
  // whole streams, counted at load; a partial one counts what it issued.
  const bool complete = static_cast<int64_t>(r->instructions.size()) == kernel.instruction_count();
  for (const InstructionRecord& rec : r->instructions) {
    if (rec.start < last_start) NotInOrder();
    last_start = rec.start;
    for (; block != dma.end() && block->first <= rec.start; ++block) active.Add(block->first, block->second);
    active.Add(rec.start, rec.end);
    const int e = static_cast<int>(rec.engine);
    busy[e].Add(rec.start, rec.end);
    EngineSummary& s = r->engines[e];
    s.instruction_time += rec.end - rec.start;
    s.time_by_opcode[static_cast<int>(kernel.stream(rec.engine)[rec.index].opcode)] += rec.end - rec.start;
    if (complete) continue;
    const InstructionView in = kernel.kernel().instruction(e, rec.index);
    const int op = static_cast<int>(in.opcode);
    s.instructions++;
    s.by_opcode[op]++;
    s.flops += Spec(in.opcode).flops(kernel.kernel(), in);
    if (in.opcode == Opcode::kTranspose) s.transpose_flops += TransposeFlops(in);
  }
  for (; block != dma.end(); ++block) active.Add(block->first, block->second);
  for (int e = 0; e < kNumEngines; ++e) {
    EngineSummary& s = r->engines[e];
    s.busy = busy[e].Length();
    if (!complete) continue;
    const EngineId id = static_cast<EngineId>(e);
    s.instructions += static_cast<int64_t>(kernel.stream(id).size());
    s.flops += kernel.flops(id);
    s.transpose_flops += kernel.transpose_flops(id);
    for (int op = 0; op < kNumOpcodes; ++op) s.by_opcode[op] += kernel.opcode_counts(id)[op];
  }
  return active.Length();
}

// The DMA queues of an execution's records, numbered as they first appear;
// one slot per DmaQueueName (the metrics' key), named once per queue.
class DmaQueueSlots {
 public:
  explicit DmaQueueSlots(ExecutionResult* r) : r_(r) {}
  int Of(EngineId engine, int queue) {
    if (last_ >= 0 && keys_[last_].engine == engine && keys_[last_].queue == queue) return keys_[last_].slot;
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i].engine == engine && keys_[i].queue == queue) return keys_[last_ = static_cast<int>(i)].slot;
    }
    DmaQueueSummary* summary = &r_->dma_queues[DmaQueueName(engine, queue)];
    const auto same = std::find(summaries_.begin(), summaries_.end(), summary);
    const int slot = static_cast<int>(same - summaries_.begin());
    if (same == summaries_.end()) summaries_.push_back(summary);
    last_ = static_cast<int>(keys_.size());
    keys_.push_back({engine, queue, slot});
    return slot;
  }
  size_t size() const { return summaries_.size(); }
  DmaQueueSummary& summary(int slot) { return *summaries_[slot]; }

 private:
  struct Key {
    EngineId engine;
    int queue;
    int slot;
  };
  ExecutionResult* r_;
  std::vector<Key> keys_;
  std::vector<DmaQueueSummary*> summaries_;  // by slot; std::map entries stay put
  int last_ = -1;
};

// Per DMA engine and per queue: pieces, bytes, busy; the totals and HBM bytes.
// Adds every piece's [start, end) to `active`: pieces come in order of start
// (SortRecords).
void SummarizeDma(const HardwareConfig& config, const Kernel& kernel, ExecutionResult* r, IntervalSet* active) {
  r->dma_engines.assign(static_cast<size_t>(config.dma.engines), DmaEngineSummary{});
  std::vector<IntervalSet> engine_iv(config.dma.engines);
  std::vector<IntervalSet> queue_iv;
  DmaQueueSlots queues(r);
  std::vector<DmaSide> sides;  // per tensor, for DmaPieceHbmBytes's sum without a lookup per piece
  sides.reserve(kernel.tensors.size());
  for (const TensorDecl& t : kernel.tensors) sides.push_back(SideOf(t));
  for (const DmaRecord& d : r->dma) {
    DmaEngineSummary& s = r->dma_engines[d.dma_engine];
    s.bytes += d.bytes;
    s.transfers++;
    s.descriptors += d.descriptors;
    engine_iv[d.dma_engine].Add(d.start, d.end);
    const int slot = queues.Of(d.trigger_engine, d.queue);
    if (static_cast<size_t>(slot) == queue_iv.size()) queue_iv.emplace_back();
    queue_iv[slot].Add(d.start, d.end);
    DmaQueueSummary& q = queues.summary(slot);
    q.bytes += d.bytes;
    q.transfers++;
    r->dma_bytes += d.bytes;
    r->dma_transfers++;
    const InstructionView in = kernel.instruction(d.trigger_engine, d.index);
    const HbmBytes hbm = PieceHbmBytes(d.bytes, sides[in.src0.tensor], sides[in.dst.tensor]);
    r->hbm_bytes_read += hbm.read;
    r->hbm_bytes_written += hbm.write;
    active->Add(d.start, d.end);
  }
  for (int e = 0; e < config.dma.engines; ++e) r->dma_engines[e].busy = engine_iv[e].Length();
  for (size_t q = 0; q < queues.size(); ++q) queues.summary(static_cast<int>(q)).busy = queue_iv[q].Length();
}

}  // namespace

HbmBytes DmaPieceHbmBytes(const Kernel& k, const DmaRecord& piece) {
  const InstructionView in = k.instruction(piece.trigger_engine, piece.index);
  return PieceHbmBytes(piece.bytes, SideOf(k.tensors[in.src0.tensor]), SideOf(k.tensors[in.dst.tensor]));
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
  IntervalSet recorded_active;
  if (r->dma_pieces_recorded) {
    SummarizeDma(config, kernel.kernel(), r, &recorded_active);
  } else {
    SummarizeDmaTotals(config, kernel, r);
  }
  const IntervalSet& dma_active = r->dma_pieces_recorded ? recorded_active : r->dma_activity;
  r->dma_active_time = dma_active.Length();
  for (const DmaEngineSummary& e : r->dma_engines) r->dma_packet_time += e.busy;
  r->active_time = SummarizeEngines(kernel, dma_active, r);
}

}  // namespace nsim
