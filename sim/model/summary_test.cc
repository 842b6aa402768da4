// Summarize gives the metrics a plain reference gives (sort and merge every
// set of intervals, key queues by name) on fabricated records in the
// canonical order (record_order.h: the model's records as SortRecords leaves
// them), with DMA pieces in any order; instruction records out of order are
// an error, not wrong metrics.
#include "sim/model/summary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "sim/kernel/builder.h"
#include "sim/model/device.h"
#include "sim/model/dma_queue_name.h"
#include "sim/model/interval_union.h"
#include "sim/model/record_order.h"

namespace nsim {
namespace {

// DMA copies on two engines and three queues, and compute on four engines.
Kernel Mixed(int steps) {
  Kernel k;
  k.name = "mixed";
  const int x = AddTensor(k, "x", MemSpace::kHbm, DType::kBF16, {16, 8}, {TensorInit::kRandn, 0, 1});
  const int y = AddTensor(k, "y", MemSpace::kHbm, DType::kF32, {16, 8});
  const int a = AddTensor(k, "a", MemSpace::kSbuf, DType::kBF16, {16, 8});
  const int b = AddTensor(k, "b", MemSpace::kSbuf, DType::kF32, {16, 8});
  for (int i = 0; i < steps; ++i) {
    Instruction ld = MakeInstruction(EngineId::kSync, Opcode::kDmaCopy);
    ld.queue = i % 2;
    ld.dst = Full(k, a);
    ld.src0 = Full(k, x);
    k.Append(ld);
    Instruction act = MakeInstruction(EngineId::kScalar, Opcode::kActivation);
    act.func = ActFunc::kSquare;
    act.dst = Full(k, b);
    act.src0 = Full(k, a);
    k.Append(act);
    Instruction add = MakeInstruction(EngineId::kVector, Opcode::kTensorTensor);
    add.alu0 = AluOp::kAdd;
    add.dst = Full(k, b);
    add.src0 = Full(k, a);
    add.src1 = Full(k, a);
    k.Append(add);
    Instruction io = MakeInstruction(EngineId::kGpSimd, Opcode::kIota);
    io.dst = Full(k, b);
    k.Append(io);
    Instruction st = MakeInstruction(EngineId::kGpSimd, Opcode::kDmaCopy);
    st.dst = Full(k, y);
    st.src0 = Full(k, b);
    k.Append(st);
  }
  return k;
}

// What Summarize computed before it merged intervals as they come: kept as
// the reference.
ExecutionMetrics Reference(const HardwareConfig& config, const LoadedKernel& lk, const ExecutionResult& r) {
  ExecutionMetrics m;
  Intervals per_engine[kNumEngines], all;
  for (const InstructionRecord& rec : r.instructions) {
    const int e = static_cast<int>(rec.engine);
    const InstructionView& in = lk.kernel().instruction(e, rec.index);
    per_engine[e].push_back({rec.start, rec.end});
    all.push_back({rec.start, rec.end});
    m.engines[e].instructions++;
    m.engines[e].by_opcode[static_cast<int>(in.opcode)]++;
    m.engines[e].flops += Spec(in.opcode).flops(lk.kernel(), in);
  }
  for (int e = 0; e < kNumEngines; ++e) m.engines[e].busy = IntervalsLength(MergeIntervals(per_engine[e]));
  m.dma_engines.assign(static_cast<size_t>(config.dma.engines), DmaEngineSummary{});
  std::vector<Intervals> dma_engine(config.dma.engines);
  std::map<std::string, Intervals> queue;
  for (const DmaRecord& d : r.dma) {
    m.dma_engines[d.dma_engine].bytes += d.bytes;
    m.dma_engines[d.dma_engine].transfers++;
    m.dma_engines[d.dma_engine].descriptors += d.descriptors;
    dma_engine[d.dma_engine].push_back({d.start, d.end});
    const std::string name = DmaQueueName(d.trigger_engine, d.queue);
    queue[name].push_back({d.start, d.end});
    m.dma_queues[name].bytes += d.bytes;
    m.dma_queues[name].transfers++;
    m.dma_bytes += d.bytes;
    m.dma_transfers++;
    const HbmBytes hbm = DmaPieceHbmBytes(lk.kernel(), d);
    m.hbm_bytes_read += hbm.read;
    m.hbm_bytes_written += hbm.write;
    all.push_back({d.start, d.end});
  }
  for (int e = 0; e < config.dma.engines; ++e) m.dma_engines[e].busy = IntervalsLength(MergeIntervals(dma_engine[e]));
  for (auto& [name, iv] : queue) m.dma_queues[name].busy = IntervalsLength(MergeIntervals(iv));
  m.active_time = IntervalsLength(MergeIntervals(all));
  return m;
}

// Random records of every instruction: each engine's in order of start
// (overlapping: an engine pipelines), interleaved across engines; one or two
// pieces per dma_copy on random DMA engines, in order of end.
ExecutionResult Fabricate(const HardwareConfig& config, const LoadedKernel& lk, std::mt19937_64& rng) {
  ExecutionResult r;
  std::vector<InstructionRecord> per[kNumEngines];
  for (int e = 0; e < kNumEngines; ++e) {
    Picos t = static_cast<Picos>(rng() % 50);
    for (const LoadedInstruction& li : lk.stream(static_cast<EngineId>(e))) {
      t += static_cast<Picos>(rng() % 30);
      const Picos end = t + static_cast<Picos>(rng() % 40);
      per[e].push_back({static_cast<EngineId>(e), li.index, t, end, 0});
      if (li.opcode != Opcode::kDmaCopy) continue;
      for (int p = 0, n = 1 + static_cast<int>(rng() % 2); p < n; ++p) {
        const Picos s = end + static_cast<Picos>(rng() % 100);
        r.dma.push_back({static_cast<int>(rng() % static_cast<uint64_t>(config.dma.engines)), lk.instruction(li).queue,
                         static_cast<EngineId>(e), li.index, 64 + static_cast<int64_t>(rng() % 64), 1 + p, s,
                         s + static_cast<Picos>(rng() % 200), true});
      }
    }
  }
  size_t next[kNumEngines] = {};
  for (size_t left = static_cast<size_t>(lk.instruction_count()); left > 0;) {  // engines run ahead: bursts
    int e;
    do e = static_cast<int>(rng() % kNumEngines); while (next[e] == per[e].size());
    for (size_t n = 1 + rng() % 4; n > 0 && next[e] < per[e].size(); --n, --left) {
      r.instructions.push_back(per[e][next[e]++]);
    }
  }
  std::stable_sort(r.dma.begin(), r.dma.end(), [](const DmaRecord& a, const DmaRecord& b) { return a.end < b.end; });
  return r;
}

void ExpectSame(const ExecutionMetrics& want, const ExecutionMetrics& got, const std::string& where) {
  for (int e = 0; e < kNumEngines; ++e) {
    EXPECT_EQ(got.engines[e].busy, want.engines[e].busy) << where << " engine " << e;
    EXPECT_EQ(got.engines[e].instructions, want.engines[e].instructions) << where;
    EXPECT_EQ(got.engines[e].by_opcode, want.engines[e].by_opcode) << where;
    EXPECT_EQ(got.engines[e].flops, want.engines[e].flops) << where;
  }
  ASSERT_EQ(got.dma_engines.size(), want.dma_engines.size()) << where;
  for (size_t e = 0; e < want.dma_engines.size(); ++e) {
    EXPECT_EQ(got.dma_engines[e].busy, want.dma_engines[e].busy) << where << " DMA engine " << e;
    EXPECT_EQ(got.dma_engines[e].bytes, want.dma_engines[e].bytes) << where;
    EXPECT_EQ(got.dma_engines[e].transfers, want.dma_engines[e].transfers) << where;
    EXPECT_EQ(got.dma_engines[e].descriptors, want.dma_engines[e].descriptors) << where;
  }
  ASSERT_EQ(got.dma_queues.size(), want.dma_queues.size()) << where;
  for (const auto& [name, q] : want.dma_queues) {
    ASSERT_EQ(got.dma_queues.count(name), 1u) << where << " " << name;
    EXPECT_EQ(got.dma_queues.at(name).busy, q.busy) << where << " " << name;
    EXPECT_EQ(got.dma_queues.at(name).bytes, q.bytes) << where << " " << name;
    EXPECT_EQ(got.dma_queues.at(name).transfers, q.transfers) << where << " " << name;
  }
  EXPECT_EQ(got.dma_bytes, want.dma_bytes) << where;
  EXPECT_EQ(got.dma_transfers, want.dma_transfers) << where;
  EXPECT_EQ(got.hbm_bytes_read, want.hbm_bytes_read) << where;
  EXPECT_EQ(got.hbm_bytes_written, want.hbm_bytes_written) << where;
  EXPECT_EQ(got.active_time, want.active_time) << where;
}

// Summarizes `r` and compares with the reference on the same records.
void SummarizeAndCompare(const HardwareConfig& config, const LoadedKernel& lk, ExecutionResult* r,
                         const std::string& where) {
  const ExecutionMetrics want = Reference(config, lk, *r);
  Summarize(config, lk, r);
  ExpectSame(want, *r, where);
}

bool StartsBefore(const InstructionRecord& a, const InstructionRecord& b) {
  return a.start != b.start ? a.start < b.start : a.engine < b.engine;
}

bool InOrderOfStartAndEngine(const std::vector<InstructionRecord>& records) {
  return std::is_sorted(records.begin(), records.end(), StartsBefore);
}

class SummarizeTest : public ::testing::Test {
 protected:
  const HardwareConfig config = LoadHardwareConfig("trn2");
  const std::shared_ptr<const LoadedKernel> lk = Device(config).Load(Mixed(40));
};

TEST_F(SummarizeTest, SameMetricsAsTheReferenceInTheCanonicalOrder) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 30; ++round) {
    ExecutionResult r = Fabricate(config, *lk, rng);
    ASSERT_FALSE(InOrderOfStartAndEngine(r.instructions)) << round;  // as the engines push them
    SortRecords(&r);
    SummarizeAndCompare(config, *lk, &r, "round " + std::to_string(round));
  }
}

TEST_F(SummarizeTest, EnginesFarAhead) {
  std::mt19937_64 rng(6);
  ExecutionResult r = Fabricate(config, *lk, rng);
  // Each engine's records in order, but one engine after the other.
  std::stable_sort(r.instructions.begin(), r.instructions.end(),
                   [](const InstructionRecord& a, const InstructionRecord& b) { return a.engine > b.engine; });
  SortRecords(&r);
  SummarizeAndCompare(config, *lk, &r, "engine after engine");
}

TEST_F(SummarizeTest, SameMetricsAsTheReferenceWithDmaPiecesInAnyOrder) {
  std::mt19937_64 rng(4);
  for (int round = 0; round < 30; ++round) {
    ExecutionResult r = Fabricate(config, *lk, rng);
    SortRecords(&r);
    std::shuffle(r.dma.begin(), r.dma.end(), rng);
    SummarizeAndCompare(config, *lk, &r, "round " + std::to_string(round));
  }
}

TEST_F(SummarizeTest, InstructionRecordsOutOfOrderAreAnError) {
  std::mt19937_64 rng(7);
  ExecutionResult r = Fabricate(config, *lk, rng);  // interleaved as pushed, not sorted
  ASSERT_FALSE(InOrderOfStartAndEngine(r.instructions));
  EXPECT_THROW(Summarize(config, *lk, &r), SimError);
}

TEST_F(SummarizeTest, RecordsAlreadyInOrderStay) {
  std::mt19937_64 rng(5);
  ExecutionResult r = Fabricate(config, *lk, rng);
  std::stable_sort(r.instructions.begin(), r.instructions.end(), StartsBefore);
  const std::vector<InstructionRecord> before = r.instructions;
  SummarizeAndCompare(config, *lk, &r, "sorted");
  ASSERT_EQ(r.instructions.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(r.instructions[i].engine, before[i].engine);
    EXPECT_EQ(r.instructions[i].index, before[i].index);
  }
}

}  // namespace
}  // namespace nsim
