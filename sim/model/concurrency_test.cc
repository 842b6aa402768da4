// Engines run concurrently, each in order, gated by semaphores; DMA transfers
// share the core's HBM bandwidth.
#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/model/test_util.h"

namespace nsim {
namespace {

using testing::RunText;

TEST(Concurrency, IndependentEnginesOverlap) {
  // VectorE bf16 copy [128,512] on trn2: 512/4 (perf mode 4x) = 128 cycles +
  // 100 = 228 cycles = 237.5 ns. ScalarE identity fp32 [128,512]: 512 + 158 =
  // 670 cycles = 558.333 ns. Both start at launch (1572 ns): device time is
  // launch + the longer + teardown, not the sum.
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf bf16 [128, 512]
tensor b sbuf bf16 [128, 512]
tensor c sbuf f32 [128, 512]
tensor d sbuf f32 [128, 512]
vector: tensor_copy b, a
scalar: activation d, c func=identity
)");
  EXPECT_EQ(r.Record(EngineId::kVector, 0).start, 1572000);
  EXPECT_EQ(r.Record(EngineId::kScalar, 0).start, 1572000);
  EXPECT_EQ(r.Record(EngineId::kVector, 0).end, 1572000 + 237500);
  EXPECT_EQ(r.result.device_time, 1572000 + 558333 + 100000);
}

TEST(Concurrency, SemaphoreChainAddsLatencies) {
  // vector -> scalar -> gpsimd, each waiting on the previous one's signal,
  // which arrives semaphore_latency (30 ns) after the producer commits.
  //   vector  [128,8] fp32 copy: 64 + 100 = 164 cycles @0.96 GHz = 170.833 ns
  //   scalar  identity N=8: 64 + 158 = 222 cycles @1.2 GHz = 185 ns
  //   gpsimd  iota N=8: 150 + 8 = 158 cycles + 8 = 166 cycles @1.2 GHz = 138.333 ns
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf f32 [128, 8]
tensor b sbuf f32 [128, 8]
tensor c sbuf f32 [128, 8]
tensor d sbuf f32 [128, 8]
semaphore s1
semaphore s2
vector: tensor_copy b, a signal=s1
scalar: activation c, b func=identity wait=s1>=1 signal=s2
gpsimd: iota d wait=s2>=1
)");
  const Picos v_end = 1572000 + 170833;  // launch 1572 ns
  EXPECT_EQ(r.Record(EngineId::kScalar, 0).start, v_end + 30000);
  const Picos s_end = v_end + 30000 + 185000;
  EXPECT_EQ(r.Record(EngineId::kGpSimd, 0).start, s_end + 30000);
  EXPECT_EQ(r.Record(EngineId::kGpSimd, 0).end, s_end + 30000 + 138333);
  EXPECT_GT(r.Record(EngineId::kScalar, 0).wait, 0);
}

TEST(Concurrency, WaitersWakeWhenTheirValueIsReached) {
  // Vector signals s three times (each copy 170.833 ns, back to back); scalar
  // waits for s >= 3 and gpsimd for s >= 2: each starts semaphore_latency
  // (30 ns) after the signal that brings s to its value, not at the first.
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf f32 [128, 8]
tensor b sbuf f32 [128, 8]
tensor c sbuf f32 [128, 8]
tensor d sbuf f32 [128, 8]
semaphore s
vector: tensor_copy b, a signal=s
vector: tensor_copy b, a signal=s
vector: tensor_copy b, a signal=s
scalar: activation c, a func=identity wait=s>=3
gpsimd: iota d wait=s>=2
)");
  for (int i = 0; i < 3; ++i) {
    const Picos end = r.Record(EngineId::kVector, i).end;
    if (i == 1) EXPECT_EQ(r.Record(EngineId::kGpSimd, 0).start, end + 30000);
    if (i == 2) EXPECT_EQ(r.Record(EngineId::kScalar, 0).start, end + 30000);
  }
  EXPECT_LT(r.Record(EngineId::kVector, 0).end, r.Record(EngineId::kVector, 1).end);
}

TEST(Concurrency, HbmContentionSlowsConcurrentTransfers) {
  // Two 32 KiB loads on different DMA engines (partitions 0-3 -> engine 0,
  // 8-11 -> engine 1). With the HBM stack limited to 46 B/ns, shared by two trn2 cores, the core's share is 23 B/ns, the two
  // share it: each moves at 11.5 B/ns instead of 23 B/ns.
  const std::string text = R"(kernel k
tensor x hbm bf16 [16, 4096]
tensor a sbuf bf16 [16, 4096]
sync: dma_copy a[0:4], x[0:4] queue=0
sync: dma_copy a[8:12], x[8:12] queue=1
)";
  auto alone = RunText("trn2", R"(kernel k
tensor x hbm bf16 [16, 4096]
tensor a sbuf bf16 [16, 4096]
sync: dma_copy a[0:4], x[0:4] queue=0
)", {"chip.hbm_stack_bandwidth=46B/ns"});
  auto both = RunText("trn2", text, {"chip.hbm_stack_bandwidth=46B/ns"});
  auto wide = RunText("trn2", text);  // 750 B/ns stack, 375 B/ns share: no contention
  ASSERT_EQ(alone.result.dma.size(), 1u);
  ASSERT_EQ(both.result.dma.size(), 2u);
  const Picos t_alone = alone.result.dma[0].end - alone.result.dma[0].start;
  EXPECT_EQ(t_alone, 6000 + 4000 + 1424696);  // piece_setup + 4 descriptors + 32 KiB / 23 B/ns
  EXPECT_EQ(both.result.dma[0].dma_engine, 0);
  EXPECT_EQ(both.result.dma[1].dma_engine, 1);
  // The second trigger is 13.333 ns later; the overlap runs at half rate.
  EXPECT_GT(both.result.dma[1].end - both.result.dma[1].start, t_alone * 19 / 10);
  EXPECT_EQ(wide.result.dma[1].end - wide.result.dma[1].start, t_alone);
}

TEST(Concurrency, QueueIsFifoOnOneEngine) {
  // Two loads on the same queue and engine: the second waits for the first.
  auto r = RunText("trn2", R"(kernel k
tensor x hbm bf16 [4, 4096]
tensor a sbuf bf16 [4, 4096]
tensor b sbuf bf16 [4, 4096]
sync: dma_copy a, x
sync: dma_copy b, x
)");
  ASSERT_EQ(r.result.dma.size(), 2u);
  EXPECT_EQ(r.result.dma[1].start, r.result.dma[0].end);
}

TEST(Concurrency, DeadlockIsReportedNotHung) {
  try {
    RunText("trn2", R"(kernel stuck
tensor a sbuf f32 [1, 8]
tensor b sbuf f32 [1, 8]
semaphore never
semaphore other
vector: tensor_copy b, a wait=never>=1 signal=other
scalar: activation a, b func=identity wait=other>=1
)");
    FAIL() << "expected a deadlock error";
  } catch (const SimError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("deadlock in kernel 'stuck'"), std::string::npos) << m;
    EXPECT_NE(m.find("vector is stuck at instruction 0 (line 6) tensor_copy, waiting for semaphore 'never' >= 1 (it is 0)"), std::string::npos) << m;
    EXPECT_NE(m.find("scalar is stuck"), std::string::npos) << m;
  }
  // The simulator is usable again after a deadlock.
  auto r = RunText("trn2", R"(kernel ok
tensor a sbuf f32 [1, 8]
tensor b sbuf f32 [1, 8]
vector: tensor_copy b, a
)");
  EXPECT_GT(r.result.device_time, 0);
}

TEST(Concurrency, DevicesOfDifferentConfigsCoexist) {
  const std::string text = R"(kernel k
tensor a sbuf f32 [128, 512]
tensor b sbuf f32 [128, 512]
vector: tensor_tensor b, a, a op=add
)";
  auto t1 = RunText("trn1", text);
  auto t2 = RunText("trn2", text);
  auto t1_again = RunText("trn1", text);
  // trn1 VectorE 1.12 GHz: 1124 cycles = 1003.571 ns; trn2 0.96 GHz: 1170.833 ns.
  EXPECT_EQ(t1.Duration(EngineId::kVector, 0), 1003571);
  EXPECT_EQ(t2.Duration(EngineId::kVector, 0), 1170833);
  EXPECT_EQ(t1.result.device_time, t1_again.result.device_time);  // deterministic, whatever ran before
}

}  // namespace
}  // namespace nsim
