// The mechanisms issue 9 added to the model, each checked against the
// arithmetic of its config values (read from the shipped trn1 config, so a
// recalibration moves the numbers but not the arithmetic stated here):
// DMA fixed costs as queue occupancy, in-order completion, queues owned by
// the issuing engine, PSUM accumulation pipelining and the timing windows of
// the NEFF pre/post-amble. (RAW turnaround and fp32 passes: tests/calibration_test.cc.)
#include <gtest/gtest.h>

#include "sim/config/loader.h"
#include "sim/model/dma_queue_name.h"
#include "sim/model/test_util.h"
#include "sim/model/timing_window.h"

namespace nsim {
namespace {

using testing::RunText;

const HardwareConfig& Trn1() {
  static const HardwareConfig c = LoadHardwareConfig("trn1");
  return c;
}

// Sync's trigger: dispatch (4 cycles at 1.4 GHz = 2.857 ns) + dma.trigger.
Picos Trigger() { return CyclesToPicos(4, Trn1().sync.freq_hz) + Trn1().dma.trigger_ps; }

const char* kTwoTinyLoads = R"(kernel k
tensor x hbm f32 [1, 1]
tensor y hbm f32 [1, 1]
tensor a sbuf f32 [1, 1]
tensor b sbuf f32 [1, 1]
semaphore s
sync: dma_copy a, x signal=s
sync: dma_copy b, y signal=s
)";

TEST(FidelityMechanisms, TinyDmasOnOneQueueAreThroughputBound) {
  // Two 4 B loads on qSyncIO0. The queue processes one descriptor ring at a
  // time: the second transfer's pieces are ready queue_setup after the
  // first's (not one trigger later), each start_latency after its setup.
  const DmaParams& d = Trn1().dma;
  auto r = RunText("trn1", kTwoTinyLoads);
  ASSERT_EQ(r.result.dma.size(), 2u);
  const Picos launch = Trn1().kernel.launch_ps;
  EXPECT_EQ(r.result.dma[0].start, launch + Trigger() + d.start_latency_ps);
  EXPECT_EQ(r.result.dma[1].start, launch + Trigger() + d.queue_setup_ps + d.start_latency_ps);
  // A piece: piece_setup + 1 descriptor + 4 B at 17 B/ns (0.235 ns, rounded up to ps).
  EXPECT_EQ(r.result.dma[0].end - r.result.dma[0].start, d.piece_setup_ps + d.descriptor_ps + 236);
}

TEST(FidelityMechanisms, QueuesBelongToTheIssuingEngine) {
  // The same queue number triggered by Sync and by GpSimd is two queues
  // (qSyncIO0, qGpSimdIO0): neither waits for the other's setup.
  auto r = RunText("trn1", R"(kernel k
tensor x hbm f32 [1, 1]
tensor y hbm f32 [1, 1]
tensor a sbuf f32 [1, 1]
tensor b sbuf f32 [1, 1]
sync:   dma_copy a, x
gpsimd: dma_copy b, y
)");
  ASSERT_EQ(r.result.dma.size(), 2u);
  // Both trigger at the same time (1.4 GHz sequencers) and both pieces land
  // on DMA engine 0 (partition 0), which serves one piece at a time: the
  // second starts when the first ends, not queue_setup after it.
  EXPECT_EQ(r.result.dma[1].start, r.result.dma[0].end);
  EXPECT_LT(r.result.dma[1].start - r.result.dma[0].start, Trn1().dma.queue_setup_ps);
  EXPECT_EQ(DmaQueueName(r.result.dma[0].trigger_engine, r.result.dma[0].queue) +
                DmaQueueName(r.result.dma[1].trigger_engine, r.result.dma[1].queue),
            r.result.dma[0].trigger_engine == EngineId::kSync ? "qSyncIO0qGpSimdIO0" : "qGpSimdIO0qSyncIO0");
}

TEST(FidelityMechanisms, QueueCompletesInOrderWithCompletionWrites) {
  // The semaphore of the second transfer fires queue_completion after the
  // first's completion at the earliest: a waiter on s>=2 starts at
  // max(end1 + completion, end2) + completion + semaphore_latency.
  const HardwareConfig& c = Trn1();
  std::string text = kTwoTinyLoads;
  text += "vector: memset a value=0 wait=s>=2\n";
  auto r = RunText("trn1", text);
  const Picos end0 = r.result.dma[0].end, end1 = r.result.dma[1].end;
  const Picos done0 = end0 + c.dma.queue_completion_ps;
  const Picos done1 = std::max(done0, end1) + c.dma.queue_completion_ps;
  EXPECT_EQ(r.Record(EngineId::kVector, 0).start, done1 + c.kernel.semaphore_latency_ps);
}

TEST(FidelityMechanisms, AccumulatingMatmulsPipelineAtTheirII) {
  // Three bf16 128x128x512 matmuls accumulating into one PSUM tile: TensorE
  // accumulates near-memory in pipeline order (S1), so they issue one II
  // apart, max(LS 32, MM 512) = 512 cycles at 2.8 GHz = 182.857 ns, not one
  // latency (32 + 512 + 320 = 864 cycles) apart.
  auto r = RunText("trn1", R"(kernel k
tensor w sbuf bf16 [128, 128]
tensor x sbuf bf16 [128, 512]
tensor p psum f32 [128, 512]
tensor o sbuf f32 [128, 512]
semaphore done
tensor: matmul p, w, x
tensor: matmul p, w, x accumulate=true
tensor: matmul p, w, x accumulate=true signal=done
vector: tensor_copy o, p wait=done>=1
)");
  EXPECT_EQ(r.Record(EngineId::kTensor, 1).start - r.Record(EngineId::kTensor, 0).start, 182857);
  EXPECT_EQ(r.Record(EngineId::kTensor, 2).start - r.Record(EngineId::kTensor, 1).start, 182857);
  // Another engine reading the tile waits for the last accumulation to commit.
  EXPECT_GE(r.Record(EngineId::kVector, 0).start, r.Record(EngineId::kTensor, 2).end);
}

TEST(FidelityMechanisms, TimingWindowsAddTheNeffPreAndPostamble) {
  const HardwareConfig& c = Trn1();
  auto r = RunText("trn1", kTwoTinyLoads);
  EXPECT_EQ(WindowTime(r.result, c, TimingMethod::kDeviceExecution), r.result.device_time);
  const Picos whole = c.kernel.neff_preamble_ps + r.result.device_time + c.kernel.neff_postamble_ps;
  EXPECT_EQ(WindowTime(r.result, c, TimingMethod::kNcl), whole);
  EXPECT_EQ(WindowTime(r.result, c, TimingMethod::kProfileTotal), whole);
  TimingMethod m;
  EXPECT_TRUE(ParseTimingMethod("ncl", &m));
  EXPECT_EQ(m, TimingMethod::kNcl);
  EXPECT_FALSE(ParseTimingMethod("wall_clock", &m));
}

}  // namespace
}  // namespace nsim
