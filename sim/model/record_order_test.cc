// Records come out in the canonical order of record_order.h: SortRecords
// orders ties by the documented keys, and every execution path hands its
// records out sorted.
#include "sim/model/record_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <tuple>
#include <vector>

#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/chip.h"
#include "sim/model/device.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {
namespace {

bool InstructionsInOrder(const std::vector<InstructionRecord>& v) {
  return std::is_sorted(v.begin(), v.end(), [](const InstructionRecord& a, const InstructionRecord& b) {
    return std::make_tuple(a.start, a.engine, a.index) < std::make_tuple(b.start, b.engine, b.index);
  });
}

bool PiecesInOrder(const std::vector<DmaRecord>& v) {
  return std::is_sorted(v.begin(), v.end(), [](const DmaRecord& a, const DmaRecord& b) {
    return std::make_tuple(a.start, a.dma_engine) < std::make_tuple(b.start, b.dma_engine);
  });
}

bool TransferEndsInOrder(const std::vector<DmaTransferRecord>& v) {
  return std::is_sorted(v.begin(), v.end(), [](const DmaTransferRecord& a, const DmaTransferRecord& b) {
    return std::make_tuple(a.end, a.trigger_engine, a.index) < std::make_tuple(b.end, b.trigger_engine, b.index);
  });
}

void ExpectCanonical(const ExecutionResult& r, const std::string& where) {
  EXPECT_TRUE(InstructionsInOrder(r.instructions)) << where;
  EXPECT_TRUE(PiecesInOrder(r.dma)) << where;
  EXPECT_TRUE(TransferEndsInOrder(r.dma_copy_ends)) << where;
}

TEST(RecordOrder, TiesAreBrokenByTheDocumentedKeys) {
  ExecutionResult r;
  r.instructions = {{EngineId::kVector, 3, 10, 20, 0},
                    {EngineId::kVector, 2, 10, 12, 0},
                    {EngineId::kSync, 7, 10, 30, 0},
                    {EngineId::kTensor, 0, 5, 9, 0}};
  r.dma = {{3, 0, EngineId::kSync, 1, 64, 1, 100, 200, true},
           {1, 1, EngineId::kSync, 2, 64, 1, 100, 150, true},
           {2, 0, EngineId::kSync, 0, 64, 1, 50, 60, false},
           {1, 0, EngineId::kScalar, 4, 0, 0, 100, 100, false}};  // zero length: ties on (start, engine)
  r.dma_copy_ends = {{EngineId::kSync, 5, 300}, {EngineId::kScalar, 1, 300}, {EngineId::kSync, 2, 300},
                     {EngineId::kGpSimd, 0, 100}};
  SortRecords(&r);
  ASSERT_EQ(r.instructions.size(), 4u);
  EXPECT_EQ(r.instructions[0].engine, EngineId::kTensor);
  EXPECT_EQ(r.instructions[1].engine, EngineId::kVector);  // engine before index at equal start
  EXPECT_EQ(r.instructions[1].index, 2);
  EXPECT_EQ(r.instructions[2].index, 3);
  EXPECT_EQ(r.instructions[3].engine, EngineId::kSync);
  ASSERT_EQ(r.dma.size(), 4u);
  EXPECT_EQ(r.dma[0].dma_engine, 2);
  EXPECT_EQ(r.dma[1].dma_engine, 1);
  EXPECT_EQ(r.dma[1].end, 100);  // then by end
  EXPECT_EQ(r.dma[2].dma_engine, 1);
  EXPECT_EQ(r.dma[2].end, 150);
  EXPECT_EQ(r.dma[3].dma_engine, 3);
  ASSERT_EQ(r.dma_copy_ends.size(), 4u);
  EXPECT_EQ(r.dma_copy_ends[0].end, 100);
  EXPECT_EQ(r.dma_copy_ends[1].trigger_engine, EngineId::kScalar);  // engine before index at equal end
  EXPECT_EQ(r.dma_copy_ends[2].index, 2);
  EXPECT_EQ(r.dma_copy_ends[3].index, 5);
}

TEST(RecordOrder, EveryExecutionPathHandsOutSortedRecords) {
  for (const auto& entry : std::filesystem::directory_iterator("sim/kernel/examples")) {
    const Kernel k = LoadKernelFile(entry.path().string());
    for (const char* config : {"trn1", "trn2"}) {
      for (bool timing_only : {false, true}) {
        Device device(LoadHardwareConfig(config));
        device.set_timing_only(timing_only);
        device.set_allow_races(true);
        const ExecutionResult r = device.Execute(*device.Load(k));
        ExpectCanonical(r, k.name + " on " + config + (timing_only ? " timing-only" : ""));
      }
    }
    Chip chip(LoadHardwareConfig("trn2"));
    const std::shared_ptr<const LoadedKernel> loaded = chip.Load(k);
    const GridResult grid = chip.Run({loaded, loaded}, {}, {}, GridOptions{});
    for (const ExecutionResult& r : grid.programs) ExpectCanonical(r, k.name + " on a two-core grid");
  }
}

}  // namespace
}  // namespace nsim
