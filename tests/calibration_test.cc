// The measured calibration points of the hardware documents (trainium-
// architecture.md section 12 and the model issue), reproduced from the config
// parameters. Each test states the measurement, the model's arithmetic, the
// tolerance and whether the point was used to calibrate a parameter.
#include <cmath>
#include <gtest/gtest.h>

#include "sim/model/test_util.h"

namespace nsim {
namespace {

using testing::RunText;

double RelErr(double model, double measured) { return std::fabs(model - measured) / measured; }

TEST(Calibration, Trn2OneEngineLoad32KiB) {
  // S8 V2: [4,4096] bf16 HBM->SBUF on one DMA engine: 1,416 ns transfer.
  // Model: piece_setup 6 ns + 4 descriptors x 1 ns + 32768 B / 23 B/ns =
  // 1434.696 ns (+1.3%). Not calibrated on (bytes_per_ns is the documented
  // table value; piece_setup is fitted to the NC-v2 4 B point).
  auto r = RunText("trn2", R"(kernel v2
tensor x hbm bf16 [4, 4096]
tensor a sbuf bf16 [4, 4096]
sync: dma_copy a, x
)");
  ASSERT_EQ(r.result.dma.size(), 1u);
  const double ns = PicosToNanos(r.result.dma[0].end - r.result.dma[0].start);
  EXPECT_NEAR(ns, 1434.696, 0.001);
  EXPECT_LT(RelErr(ns, 1416), 0.02);
}

TEST(Calibration, Trn2SixteenEngineLoad) {
  // S8 V3: [128,128] bf16 HBM->SBUF over 16 engines, 2 KiB each: ~97 ns per
  // engine. Model: piece_setup 6 ns + 8 descriptors x 1 ns + 2048 B / 23 B/ns
  // = 103.043 ns (+6.2 %). dma.descriptor (1 ns) was calibrated here before
  // piece_setup existed; the 6 ns piece setup comes from the NC-v2 "4 B DMA,
  // 7 ns of data time" point (hardware-measurements.md s2), and the two
  // points disagree by 6 ns on Trn2: kept as a known +6 % error.
  auto r = RunText("trn2", R"(kernel v3
tensor x hbm bf16 [128, 128]
tensor a sbuf bf16 [128, 128]
sync: dma_copy a, x
)");
  ASSERT_EQ(r.result.dma.size(), 16u);
  for (const DmaRecord& d : r.result.dma) {
    EXPECT_EQ(d.bytes, 2048);
    EXPECT_EQ(d.end - d.start, 103044);  // 89.043 ns rounded up to whole ps
    EXPECT_LT(RelErr(PicosToNanos(d.end - d.start), 97), 0.07);
  }
}

TEST(Calibration, TrivialKernelDeviceTime) {
  // S20 V4: trivial add kernel (two small loads, one vector add, one store):
  // 3.0-3.2 us "device-side execution" (the nrtpy window: no NEFF pre-amble).
  // kernel.launch was fitted on trn1 to this point (validation/ case
  // nrtpy_trivial_add); on trn2 the model is: launch 1572 + 2 triggers 26.7
  // (the loads use queues 0 and 1, so neither waits for the other's queue
  // setup) + DMA start 474 + ~7 ns data + completion 70 + 30 sem + add 170.8
  // + 30 sem + trigger 13.3 + 474 + ~7 + 70 + teardown 100 = 3.053 us.
  auto r = RunText("trn2", R"(kernel trivial_add
tensor a hbm f16 [4, 3] init=ones
tensor b hbm f16 [4, 3] init=ones
tensor out hbm f16 [4, 3]
tensor ta sbuf f16 [4, 3]
tensor tb sbuf f16 [4, 3]
tensor tc sbuf f16 [4, 3]
semaphore loaded
semaphore added
sync:   dma_copy ta, a queue=0 signal=loaded
sync:   dma_copy tb, b queue=1 signal=loaded
vector: tensor_tensor tc, ta, tb op=add wait=loaded>=2 signal=added
sync:   dma_copy out, tc wait=added>=1
)");
  const double us = PicosToMicros(r.result.device_time);
  EXPECT_GE(us, 3.0);
  EXPECT_LE(us, 3.2);
  for (float v : r.Read("out")) EXPECT_EQ(v, 2.0f);
}

TEST(Calibration, Trn1DependentScalarChain) {
  // S6 V6: NeuronCore-v2, dependent one-element ScalarE activations: one every
  // ~189 ns (264 cycles at 1.4 GHz), each lasting 159 ns
  // (hardware-measurements.md s2). Calibration points for
  // scalar.pipeline_latency (MIN_II 64 + 158 = 222 cycles = 158.571 ns) and
  // kernel.raw_turnaround (30 ns): 188.571 ns.
  auto r = RunText("trn1", R"(kernel chain
tensor a sbuf f32 [1, 1]
tensor b sbuf f32 [1, 1]
scalar: activation b, a func=identity
scalar: activation a, b func=identity
scalar: activation b, a func=identity
scalar: activation a, b func=identity
)");
  for (int i = 1; i < 4; ++i) {
    const Picos step = r.Record(EngineId::kScalar, i).start - r.Record(EngineId::kScalar, i - 1).start;
    EXPECT_EQ(step, 188571);
    EXPECT_LT(RelErr(PicosToNanos(step), 189), 0.01);
  }
}

TEST(Calibration, Trn2Fp32Matmul) {
  // Measured: one fp32 128x128x512 FP32_LO_HI instruction on trn2 takes
  // ~590 ns. Model, re-derived from the documents' fp32 modes (S1 "roughly
  // 4x", S14 "two FP32_LO_HI instructions"): fp32_factor 4 shared by 2
  // passes, one pass LS 32 x 2 + MM 512 x 2 + pipeline 320 = 1408 cycles at
  // 2.4 GHz = 586.667 ns (-0.6 %); the second pass follows one pass II (1024
  // cycles) later, so the matmul takes 2432 cycles = 1013.333 ns.
  auto r = RunText("trn2", R"(kernel mm
tensor w sbuf f32 [128, 128]
tensor x sbuf f32 [128, 512]
tensor p psum f32 [128, 512]
tensor q psum f32 [128, 512]
tensor: matmul p, w, x
tensor: matmul q, w, x
)");
  const auto& rec = r.Record(EngineId::kTensor, 0);
  // Back to back, fp32 matmuls issue every 2 passes x 1024 cycles = 853.333 ns
  // (4x the bf16 II, S1).
  EXPECT_EQ(r.Record(EngineId::kTensor, 1).start - rec.start, 853333);
  EXPECT_EQ(rec.end - rec.start, 1013333);
  const double pass_ns = PicosToNanos(rec.end - rec.start) - 1024 / 2.4;  // minus one pass II
  EXPECT_LT(RelErr(pass_ns, 590), 0.01);
}

}  // namespace
}  // namespace nsim
