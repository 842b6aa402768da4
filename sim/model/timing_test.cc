// Per-instruction-class timing on the shipped configs. Each expectation is
// derived from the config values named in the comment (see configs/*.yaml);
// a config change that moves them must update the arithmetic here too.
#include <gtest/gtest.h>

#include "sim/model/test_util.h"

namespace nsim {
namespace {

using testing::RunText;

// trn2 inherits trn1's launch 1572 ns and teardown 100 ns (kernel.launch /
// kernel.teardown, calibrated on the nrtpy trivial-add point, validation/).
constexpr Picos kLaunch = 1572000, kTeardown = 100000;

TEST(Timing, VectorTensorTensorFp32IsTwoInputRate) {
  // trn2 VectorE 0.96 GHz. fp32 add is off the fast path: 2N = 2 * 512 = 1024
  // cycles (S11), no perf mode for fp32. Latency = 1024 + L_pipe 100 = 1124
  // cycles = 1124 / 0.96 GHz = 1170.833 ns.
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf f32 [128, 512]
tensor b sbuf f32 [128, 512]
vector: tensor_tensor b, a, a op=add
)");
  const auto& rec = r.Record(EngineId::kVector, 0);
  EXPECT_EQ(rec.start, kLaunch);
  EXPECT_EQ(rec.end - rec.start, 1170833);
  EXPECT_EQ(r.result.device_time, kLaunch + 1170833 + kTeardown);
}

TEST(Timing, VectorBf16AddUsesFastPathAndPerfMode) {
  // bf16 add, both SBUF, contiguous: N = 512 cycles (S11 fast path), halved by
  // the trn2 tensor_tensor perf mode (2x, S2): 256 cycles; + 100 = 356 cycles
  // = 370.833 ns. Back to back, the second issues one II (256 cycles =
  // 266.667 ns) after the first: independent instructions pipeline.
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf bf16 [128, 512]
tensor b sbuf bf16 [128, 512]
tensor c sbuf bf16 [128, 512]
vector: tensor_tensor b, a, a op=add
vector: tensor_tensor c, a, a op=add
)");
  EXPECT_EQ(r.Duration(EngineId::kVector, 0), 370833);
  EXPECT_EQ(r.Record(EngineId::kVector, 1).start - r.Record(EngineId::kVector, 0).start, 266667);
}

TEST(Timing, DependentInstructionWaitsForCommit) {
  // The second reads what the first writes (RAW on one engine, S6): it starts
  // when the first commits, 370.833 ns later, not one II later.
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf bf16 [128, 512]
tensor b sbuf bf16 [128, 512]
tensor c sbuf bf16 [128, 512]
vector: tensor_tensor b, a, a op=add
vector: tensor_tensor c, b, a op=add
)");
  // ... plus kernel.raw_turnaround (30 ns): the commit reaching the reader.
  EXPECT_EQ(r.Record(EngineId::kVector, 1).start, r.Record(EngineId::kVector, 0).end + 30000);
}

TEST(Timing, SmallInstructionsPayMinII) {
  // N = 8 is below MIN_II: II = 64 cycles, latency 164 cycles at 0.96 GHz = 170.833 ns.
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf f32 [128, 8]
tensor b sbuf f32 [128, 8]
vector: tensor_copy b, a
)");
  EXPECT_EQ(r.Duration(EngineId::kVector, 0), 170833);
}

TEST(Timing, StridedAccessHalvesBandwidth) {
  // Innermost stride 2 x 4 B = 8 B is fine; stride 8 x 4 B = 32 B > 16 B
  // halves the port bandwidth (S1): tensor_copy fp32 N=256 -> 512 cycles,
  // + 100 = 612 cycles = 637.5 ns (vs 356 cycles = 370.833 ns contiguous).
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf f32 [128, 2048]
tensor b sbuf f32 [128, 256]
tensor c sbuf f32 [128, 256]
vector: tensor_copy b, a[:, 0:2048:8]
vector: tensor_copy c, a[:, 0:256]
)");
  EXPECT_EQ(r.Duration(EngineId::kVector, 0), 637500);
  EXPECT_EQ(r.Duration(EngineId::kVector, 1), 370833);
}

TEST(Timing, TensorReduceBf16IsHalfRate) {
  // bf16 in/out sum: N/2 = 256 cycles (S11); + 100 = 356 cycles = 370.833 ns.
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf bf16 [128, 512]
tensor s sbuf bf16 [128, 1]
vector: tensor_reduce s, a op=sum
)");
  EXPECT_EQ(r.Duration(EngineId::kVector, 0), 370833);
}

TEST(Timing, ActivationAndTableLoad) {
  // trn2 ScalarE 1.2 GHz: exp over N=512 -> 512 cycles + L_pipe 158 = 670
  // cycles = 558.333 ns, preceded by a 368 ns table load (first use of the
  // exp table set; ACT_TABLE_LOAD measured on NC-v2). The second exp needs no
  // reload; it issues one II (512 cycles = 426.667 ns) after the first's issue.
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf f32 [128, 512]
tensor b sbuf f32 [128, 512]
tensor c sbuf f32 [128, 512]
scalar: activation b, a func=exp
scalar: activation c, a func=exp
)");
  const auto& first = r.Record(EngineId::kScalar, 0);
  const auto& second = r.Record(EngineId::kScalar, 1);
  EXPECT_EQ(first.end - first.start, 368000 + 558333);
  EXPECT_EQ(second.start - first.start, 368000 + 426667);
  EXPECT_EQ(second.end - second.start, 558333);
}

TEST(Timing, ActivationAccumulateAddsReadAccumulator) {
  // square with acc: 512 + 64 (S1 ActReadAccumulator) = 576 cycles, + 158 =
  // 734 cycles at 1.2 GHz = 611.667 ns; square needs no table load.
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf f32 [128, 512]
tensor b sbuf f32 [128, 512]
tensor s sbuf f32 [128, 1]
scalar: activation b, a func=square acc=s
)");
  EXPECT_EQ(r.Duration(EngineId::kScalar, 0), 611667);
}

TEST(Timing, MatmulBf16AndBackToBack) {
  // trn2 TensorE 2.4 GHz, bf16 128x128x512: LS = 128/4 = 32, MM = max(64,
  // 512) = 512, latency = 32 + 512 + 320 (pipeline) = 864 cycles = 360 ns.
  // Back to back, the next pair issues max(LS, MM) = 512 cycles = 213.333 ns later.
  auto r = RunText("trn2", R"(kernel k
tensor w sbuf bf16 [128, 128]
tensor x sbuf bf16 [128, 512]
tensor p psum f32 [128, 512]
tensor q psum f32 [128, 512]
tensor: matmul p, w, x
tensor: matmul q, w, x
)");
  EXPECT_EQ(r.Duration(EngineId::kTensor, 0), 360000);
  EXPECT_EQ(r.Record(EngineId::kTensor, 1).start - r.Record(EngineId::kTensor, 0).start, 213333);
}

TEST(Timing, TransposeCost) {
  // S11 nc_transpose: max(P, min(64, F)) = max(128, 64) = 128 cycles; + 320
  // pipeline = 448 cycles at 2.4 GHz = 186.667 ns.
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf bf16 [128, 96]
tensor t psum f32 [96, 128]
tensor: transpose t, a
)");
  EXPECT_EQ(r.Duration(EngineId::kTensor, 0), 186667);
}

TEST(Timing, GpSimdIota) {
  // trn2 GpSimd 1.2 GHz: 150 + 1 * 512 = 662 cycles; + L_pipe 8 = 670 cycles = 558.333 ns.
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf f32 [128, 512]
gpsimd: iota a base=0 free_step=1
)");
  EXPECT_EQ(r.Duration(EngineId::kGpSimd, 0), 558333);
}

TEST(Timing, SbufToSbufDmaDoesNotUseHbm) {
  // [128, 1024] f32 SBUF->SBUF: 16 engines x 8 partitions x 4 KiB = 32 KiB
  // each, 8 descriptors: piece_setup 6 ns + 8 ns + 32768 B / 23 B/ns =
  // 1438.696 ns; starts dma.start_latency 474 ns after the trigger (4 cycles
  // at 1.2 GHz + 10 ns = 13.333 ns).
  auto r = RunText("trn2", R"(kernel k
tensor a sbuf f32 [128, 1024]
tensor b sbuf f32 [128, 1024]
sync: dma_copy b, a
)");
  ASSERT_EQ(r.result.dma.size(), 16u);
  for (const DmaRecord& d : r.result.dma) {
    EXPECT_FALSE(d.touches_hbm);
    EXPECT_EQ(d.start, kLaunch + 13333 + 474000);
    EXPECT_EQ(d.end - d.start, 6000 + 8000 + 1424696);
  }
  EXPECT_EQ(r.result.hbm_bytes_read, 0);
}

}  // namespace
}  // namespace nsim
