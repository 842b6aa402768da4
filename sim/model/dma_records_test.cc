// Executions without per-DMA-piece records (Device::set_record_dma_pieces)
// produce the same device time, instruction records, transfer ends, summaries
// and warnings as with them, and hold no piece record.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>

#include "sim/config/loader.h"
#include "sim/kernel/builder.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"
#include "sim/model/interval_union.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {
namespace {

void ExpectSameSummaries(const std::string& config_name, const Kernel& k, bool timing_only) {
  Device with(LoadHardwareConfig(config_name)), without(LoadHardwareConfig(config_name));
  with.set_timing_only(timing_only);
  without.set_timing_only(timing_only);
  without.set_record_dma_pieces(false);
  with.set_allow_races(true);
  without.set_allow_races(true);
  const auto loaded = with.Load(k);
  const ExecutionResult a = with.Execute(*loaded), b = without.Execute(*loaded);
  const std::string where = k.name + " on " + config_name;
  EXPECT_TRUE(a.dma_pieces_recorded) << where;
  EXPECT_FALSE(b.dma_pieces_recorded) << where;
  EXPECT_TRUE(b.dma.empty()) << where;
  EXPECT_EQ(a.dma.size(), static_cast<size_t>(loaded->dma_piece_count())) << where;
  EXPECT_EQ(a.device_time, b.device_time) << where;
  ASSERT_EQ(a.instructions.size(), b.instructions.size()) << where;
  for (size_t i = 0; i < a.instructions.size(); ++i) {
    EXPECT_EQ(a.instructions[i].engine, b.instructions[i].engine) << where;
    EXPECT_EQ(a.instructions[i].index, b.instructions[i].index) << where;
    EXPECT_EQ(a.instructions[i].start, b.instructions[i].start) << where;
    EXPECT_EQ(a.instructions[i].end, b.instructions[i].end) << where;
  }
  ASSERT_EQ(a.dma_copy_ends.size(), static_cast<size_t>(loaded->dma_count())) << where;
  ASSERT_EQ(a.dma_copy_ends.size(), b.dma_copy_ends.size()) << where;
  for (size_t i = 0; i < a.dma_copy_ends.size(); ++i) EXPECT_EQ(a.dma_copy_ends[i].end, b.dma_copy_ends[i].end) << where;
  for (int e = 0; e < kNumEngines; ++e) {
    EXPECT_EQ(a.engines[e].busy, b.engines[e].busy) << where;
    EXPECT_EQ(a.engines[e].instructions, b.engines[e].instructions) << where;
    EXPECT_EQ(a.engines[e].by_opcode, b.engines[e].by_opcode) << where;
    EXPECT_EQ(a.engines[e].flops, b.engines[e].flops) << where;
  }
  ASSERT_EQ(a.dma_engines.size(), b.dma_engines.size()) << where;
  for (size_t e = 0; e < a.dma_engines.size(); ++e) {
    EXPECT_EQ(a.dma_engines[e].bytes, b.dma_engines[e].bytes) << where << " DMA engine " << e;
    EXPECT_EQ(a.dma_engines[e].transfers, b.dma_engines[e].transfers) << where << " DMA engine " << e;
    EXPECT_EQ(a.dma_engines[e].descriptors, b.dma_engines[e].descriptors) << where << " DMA engine " << e;
    EXPECT_EQ(a.dma_engines[e].busy, b.dma_engines[e].busy) << where << " DMA engine " << e;
  }
  ASSERT_EQ(a.dma_queues.size(), b.dma_queues.size()) << where;
  for (const auto& [name, q] : a.dma_queues) {
    ASSERT_EQ(b.dma_queues.count(name), 1u) << where << " queue " << name;
    EXPECT_EQ(q.bytes, b.dma_queues.at(name).bytes) << where << " queue " << name;
    EXPECT_EQ(q.transfers, b.dma_queues.at(name).transfers) << where << " queue " << name;
    EXPECT_EQ(q.busy, b.dma_queues.at(name).busy) << where << " queue " << name;
  }
  EXPECT_EQ(a.hbm_bytes_read, b.hbm_bytes_read) << where;
  EXPECT_EQ(a.hbm_bytes_written, b.hbm_bytes_written) << where;
  EXPECT_EQ(a.dma_bytes, b.dma_bytes) << where;
  EXPECT_EQ(a.dma_transfers, b.dma_transfers) << where;
  EXPECT_EQ(a.dma_transfers, loaded->dma_piece_count()) << where;
  // The active time: the union of every instruction and every piece, from
  // the records, the same without them.
  Intervals activity;
  for (const InstructionRecord& rec : a.instructions) activity.emplace_back(rec.start, rec.end);
  for (const DmaRecord& d : a.dma) activity.emplace_back(d.start, d.end);
  EXPECT_EQ(a.active_time, IntervalsLength(MergeIntervals(std::move(activity)))) << where;
  EXPECT_EQ(b.active_time, a.active_time) << where;
  EXPECT_EQ(a.warnings, b.warnings) << where;
}

TEST(DmaRecords, ExampleKernelsSummariseTheSameWithoutPieceRecords) {
  for (const auto& entry : std::filesystem::directory_iterator("sim/kernel/examples")) {
    const Kernel k = LoadKernelFile(entry.path().string());
    for (const char* config : {"trn1", "trn2"}) ExpectSameSummaries(config, k, /*timing_only=*/false);
  }
}

// A stream long enough that each queue's busy union is folded many times
// while it runs (thousands of pieces per queue, 16 DMA engines per transfer,
// transfers of three queues in flight together).
TEST(DmaRecords, LongStreamSummarisesTheSameWithoutPieceRecords) {
  Kernel k;
  k.name = "long_stream";
  const int x = AddTensor(k, "x", MemSpace::kHbm, DType::kBF16, {128, 64}, {TensorInit::kOnes, 0, 0});
  const int y = AddTensor(k, "y", MemSpace::kHbm, DType::kBF16, {128, 64});
  const int a = AddTensor(k, "a", MemSpace::kSbuf, DType::kBF16, {128, 64});
  const int b = AddTensor(k, "b", MemSpace::kSbuf, DType::kBF16, {128, 64});
  const int loaded = AddSemaphore(k, "loaded"), stored = AddSemaphore(k, "stored");
  for (int i = 0; i < 400; ++i) {
    Instruction ld = MakeInstruction(EngineId::kSync, Opcode::kDmaCopy);
    ld.queue = i % 2;
    ld.dst = Full(k, a);
    ld.src0 = Full(k, x);
    ld.waits = {{stored, i}};
    ld.signals = {{loaded, 1}};
    k.Append(ld);
    Instruction cp = MakeInstruction(EngineId::kVector, Opcode::kTensorCopy);
    cp.dst = Full(k, b);
    cp.src0 = Full(k, a);
    cp.waits = {{loaded, i + 1}};
    k.Append(cp);
    Instruction st = MakeInstruction(EngineId::kVector, Opcode::kDmaCopy);
    st.dst = Full(k, y);
    st.src0 = Full(k, b);
    st.signals = {{stored, 1}};
    k.Append(st);
  }
  ExpectSameSummaries("trn2", k, /*timing_only=*/true);
  ExpectSameSummaries("trn2", k, /*timing_only=*/false);
}

}  // namespace
}  // namespace nsim
