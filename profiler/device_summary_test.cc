// The device summary and the counter tracks against an execution whose
// instruction and DMA records, and the metrics the simulator reports for
// them, are written out here, so every expected number can be checked by hand.
// The summary reads the metrics (it never recomputes them from the slices);
// the counters are windows over the slices.
#include "profiler/device_summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "profiler/counters.h"
#include "profiler/summary_report.h"
#include "profiler/synthetic.h"

namespace nsim {
namespace prof {
namespace {

constexpr Picos kT = 1000000;  // 1 us

InstructionSlice Instr(const char* lane, const char* opcode, Picos start, Picos end,
                       int64_t flops) {
  return synthetic::Instruction(lane, opcode, start, end, flops);
}

DmaSlice Dma(const char* queue, int64_t bytes, Picos start, Picos end) {
  return synthetic::HbmDma(queue, 0, bytes, start, end);
}

// 20 us on the device; engines active in [0,3] u [5,13] u [15,16] us.
DeviceExecution HandMade() {
  DeviceExecution e;
  e.kernel_hash = 42;
  e.kernel_name = "rmsnorm";
  e.start = 100 * kT;
  e.end = 120 * kT;
  e.instructions = {
      Instr("VectorE", "tensor_tensor", 5 * kT, 9 * kT, 100),
      Instr("VectorE", "tensor_tensor", 7 * kT, 11 * kT, 100),  // overlaps: busy counts once
      Instr("VectorE", "tensor_reduce", 12 * kT, 13 * kT, 50),
      Instr("TensorE", "matmul", 1 * kT, 3 * kT, 1000),
      Instr("ScalarE", "activation", 11 * kT, 12 * kT, 10),
  };
  e.dma = {Dma("DMA q0", 1000, 0, 2 * kT), Dma("DMA q0", 1000, 1 * kT, 3 * kT),
           Dma("DMA q1", 500, 15 * kT, 16 * kT)};
  e.hbm_read_bytes = 2000;
  e.hbm_write_bytes = 500;
  e.metrics.engines = {
      synthetic::EngineMetrics("TensorE", 2 * kT, 1, 1000, {{"matmul", 1}}),
      synthetic::EngineMetrics("VectorE", 7 * kT, 3, 250, {{"tensor_tensor", 2}, {"tensor_reduce", 1}}),
      synthetic::EngineMetrics("ScalarE", 1 * kT, 1, 10, {{"activation", 1}}),
      synthetic::EngineMetrics("GpSimd", 0, 0, 0, {}),
      synthetic::EngineMetrics("Sync", 0, 0, 0, {}),
  };
  e.metrics.dma_queues = {{"DMA q0", 2000, 2, 3 * kT}, {"DMA q1", 500, 1, 1 * kT}};
  e.metrics.dma_bytes = 2500;
  e.metrics.dma_transfers = 3;
  e.metrics.active_time = 12 * kT;  // [0,3] u [5,13] u [15,16]
  e.peak_flops_per_s = 1e12;
  e.peak_hbm_bytes_per_s = 1e9;
  return e;
}

const EngineStats& Engine(const DeviceSummary& s, const std::string& lane) {
  for (const EngineStats& e : s.engines) {
    if (e.lane == lane) return e;
  }
  throw std::out_of_range(lane);
}

TEST(DeviceSummaryTest, EngineNumbersAreTheSimulatorMetrics) {
  const DeviceSummary s = SummarizeExecution(HandMade());
  EXPECT_EQ(s.device_time, 20 * kT);
  ASSERT_EQ(s.engines.size(), 5u);
  EXPECT_EQ(s.engines[0].lane, "TensorE");  // canonical order, idle engines included
  EXPECT_EQ(s.engines[3].lane, "GpSimd");
  const EngineStats& vector = Engine(s, "VectorE");
  EXPECT_EQ(vector.busy, 7 * kT);  // [5,11] u [12,13]
  EXPECT_EQ(vector.instructions, 3);
  EXPECT_EQ(vector.by_opcode.at("tensor_tensor"), 2);
  EXPECT_EQ(vector.by_opcode.at("tensor_reduce"), 1);
  EXPECT_DOUBLE_EQ(s.Utilisation(vector), 0.35);
  EXPECT_EQ(Engine(s, "TensorE").busy, 2 * kT);
  EXPECT_EQ(Engine(s, "GpSimd").instructions, 0);
  EXPECT_EQ(s.flops, 1260);
}

TEST(DeviceSummaryTest, DmaAndBandwidth) {
  const DeviceSummary s = SummarizeExecution(HandMade());
  ASSERT_EQ(s.dma_queues.size(), 2u);
  EXPECT_EQ(s.dma_queues[0].queue, "DMA q0");
  EXPECT_EQ(s.dma_queues[0].bytes, 2000);
  EXPECT_EQ(s.dma_queues[0].transfers, 2);
  EXPECT_EQ(s.dma_queues[0].busy, 3 * kT);
  EXPECT_EQ(s.dma_bytes, 2500);
  EXPECT_DOUBLE_EQ(s.DmaBytesPerSecond(), 2500 / 20e-6);
  EXPECT_DOUBLE_EQ(s.HbmBytesPerSecond(), 2500 / 20e-6);
  EXPECT_DOUBLE_EQ(s.Mbu(), 0.125);  // 2500 B of the 20000 B possible in 20 us at 1 GB/s
  EXPECT_DOUBLE_EQ(s.Mfu(), 1260 / 2e7);
}

TEST(DeviceSummaryTest, OverheadBoundWhenIdleTimeExceedsBothRoofs) {
  const DeviceSummary s = SummarizeExecution(HandMade());
  EXPECT_EQ(s.active_time, 12 * kT);
  EXPECT_EQ(s.roofline.overhead, 8 * kT);
  EXPECT_EQ(s.roofline.compute_floor, 1260);       // 1260 FLOPs at 1 TFLOP/s: 1.26 ns
  EXPECT_EQ(s.roofline.memory_floor, 2500 * 1000);  // 2500 B at 1 GB/s: 2.5 us
  EXPECT_DOUBLE_EQ(s.roofline.arithmetic_intensity, 1260.0 / 2500);
  EXPECT_DOUBLE_EQ(s.roofline.ridge_point, 1000.0);
  EXPECT_EQ(s.roofline.bound, Bound::kOverhead);
  const std::string why = RooflineExplanation(s);
  EXPECT_NE(why.find("overhead-bound: 8.000us of 20.000us"), std::string::npos) << why;
  EXPECT_NE(why.find("memory floor 2.500us"), std::string::npos) << why;
}

TEST(DeviceSummaryTest, MemoryBoundWhenHbmTrafficDominates) {
  DeviceExecution e = HandMade();
  e.hbm_read_bytes = 15000;  // 15.5 us at 1 GB/s > 8 us idle
  const DeviceSummary s = SummarizeExecution(e);
  EXPECT_EQ(s.roofline.bound, Bound::kMemory);
  EXPECT_LT(s.roofline.arithmetic_intensity, s.roofline.ridge_point);
}

TEST(DeviceSummaryTest, ComputeBoundWhenFlopsDominate) {
  DeviceExecution e = HandMade();
  e.instructions.push_back(Instr("TensorE", "matmul", 3 * kT, 5 * kT, 15000000));  // 15 us at peak
  e.metrics.engines[0] = synthetic::EngineMetrics("TensorE", 4 * kT, 2, 15001000, {{"matmul", 2}});
  e.metrics.active_time = 14 * kT;  // [0,13] u [15,16]
  const DeviceSummary s = SummarizeExecution(e);
  EXPECT_EQ(s.roofline.bound, Bound::kCompute);
  EXPECT_EQ(s.roofline.overhead, 6 * kT);
  EXPECT_GT(s.roofline.arithmetic_intensity, s.roofline.ridge_point);
}

TEST(DeviceSummaryTest, ProfileTotalsAreSums) {
  DeviceExecution longer = HandMade();
  longer.end = longer.start + 40 * kT;  // same work, twice the time
  const DeviceSummary a = SummarizeExecution(HandMade());
  const DeviceSummary b = SummarizeExecution(longer);
  const DeviceSummary t = SummarizeTotal({a, b});
  EXPECT_EQ(t.executions, 2);
  EXPECT_EQ(t.device_time, 60 * kT);
  EXPECT_EQ(Engine(t, "VectorE").busy, 14 * kT);
  EXPECT_EQ(Engine(t, "VectorE").by_opcode.at("tensor_tensor"), 4);
  EXPECT_DOUBLE_EQ(t.Utilisation(Engine(t, "VectorE")), 14.0 / 60);
  EXPECT_EQ(t.flops, 2520);
  EXPECT_DOUBLE_EQ(t.Mfu(), 2520 / 6e7);
  EXPECT_EQ(t.roofline.overhead, (8 + 28) * kT);
  EXPECT_EQ(t.roofline.memory_floor, 2 * 2500 * 1000);
  EXPECT_EQ(t.roofline.bound, Bound::kOverhead);
}

TEST(DeviceSummaryTest, RecordingSummaryUsesCapturedExecutionsAndNamesTheirOps) {
  Recording rec;
  RecordedOp op;
  op.info.name = "aten::mul";
  op.correlation_id = 7;
  op.end = 1;
  rec.ops.push_back(op);
  RecordedExecution captured{HandMade(), true};
  captured.exec.op_correlation_id = 7;
  RecordedExecution not_captured{HandMade(), false};
  rec.executions = {captured, not_captured};
  const ProfileDeviceSummary s = SummarizeRecording(rec);
  ASSERT_EQ(s.executions.size(), 1u);
  EXPECT_EQ(s.executions[0].launched_by, "aten::mul");
  EXPECT_EQ(s.total.device_time, 20 * kT);

  const nlohmann::json doc = nlohmann::json::parse(SummaryJson(s));
  EXPECT_EQ(doc["schema_version"], kSchemaVersion);
  EXPECT_DOUBLE_EQ(doc["total_time_ns"].get<double>(), PicosToNanos(20 * kT));
  EXPECT_DOUBLE_EQ(doc["total"]["total_time_ns"].get<double>(), PicosToNanos(20 * kT));
  EXPECT_EQ(doc["executions"][0]["kernel_hash"], "42");
  EXPECT_EQ(doc["executions"][0]["engines"][1]["by_opcode"]["tensor_tensor"], 2);
  EXPECT_EQ(doc["executions"][0]["roofline"]["verdict"], "overhead-bound");
  EXPECT_DOUBLE_EQ(doc["executions"][0]["mbu_estimated_percent"].get<double>(), 12.5);
  const std::string text = SummaryText(s);
  EXPECT_NE(text.find("kernel rmsnorm (hash 42) on NC0, launched by aten::mul"), std::string::npos)
      << text;
  EXPECT_NE(text.find("overhead-bound"), std::string::npos);
}

TEST(CountersTest, WindowsAverageBusyShareAndHbmRate) {
  const std::vector<CounterSample> samples = UtilisationTimeline(HandMade(), 20);
  ASSERT_EQ(samples.size(), 21u);  // one per us, then the closing zeros
  EXPECT_EQ(samples[0].time, 100 * kT);
  EXPECT_DOUBLE_EQ(samples[0].hbm_gb_per_s, 0.5);  // 500 B of the first piece in 1 us
  EXPECT_DOUBLE_EQ(samples[1].hbm_gb_per_s, 1.0);  // both q0 pieces
  EXPECT_DOUBLE_EQ(samples[4].hbm_gb_per_s, 0.0);
  auto percent = [](const CounterSample& c, const std::string& lane) {
    for (const auto& [name, value] : c.engine_percent) {
      if (name == lane) return value;
    }
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(percent(samples[5], "VectorE"), 100.0);
  EXPECT_DOUBLE_EQ(percent(samples[11], "VectorE"), 0.0);
  EXPECT_DOUBLE_EQ(percent(samples[1], "TensorE"), 100.0);
  EXPECT_EQ(samples.back().time, 120 * kT);
  EXPECT_DOUBLE_EQ(percent(samples.back(), "VectorE"), 0.0);
}

}  // namespace
}  // namespace prof
}  // namespace nsim
