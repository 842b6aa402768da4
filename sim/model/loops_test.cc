// Same answers: a kernel written with loops (docs/kernel-format.md "Loops")
// runs exactly as its written-out form: device time in ps, every instruction
// and DMA record field by field, and the values. The flat form is the
// canonical text of the same streams without the loop form, parsed again.
#include <gtest/gtest.h>

#include "sim/kernel/printer.h"
#include "sim/model/test_util.h"

namespace nsim {
namespace {

// Nested loops, a buffer selected modulo 2, semaphore thresholds over the
// induction variables, and four engines (sync and gpsimd DMAs, VectorE,
// TensorE, ScalarE).
const char kLooped[] = R"(kernel looped
tensor x   hbm  f32 [4, 8, 16] init=iota
tensor w   hbm  f32 [8, 8] init=ones
tensor out hbm  f32 [4, 8, 16]
tensor buf sbuf f32 [8, 2, 16]
tensor wt  sbuf f32 [8, 8]
tensor acc psum f32 [8, 16]
tensor res sbuf f32 [8, 16]
semaphore loaded
semaphore scaled
semaphore multiplied
semaphore copied
semaphore stored
sync: dma_copy wt, w signal=loaded
loop i in 0:4 {
  loop j in 0:8:4 {
    sync: dma_copy buf[j:j + 4, i % 2], x[i, j:j + 4] wait=stored>=(2*i - 1) / 2 signal=loaded
  }
  vector: tensor_scalar buf[:, i % 2], buf[:, i % 2] op0=multiply scalar0=2 wait=loaded>=2*i+3 signal=scaled
  tensor: matmul acc, wt, buf[:, i % 2] wait=scaled>=i + 1 wait=copied>=i signal=multiplied
  scalar: activation res, acc func=identity wait=multiplied>=i + 1 wait=stored>=i signal=copied
  gpsimd: dma_copy out[i], res wait=copied>=i + 1 signal=stored
}
)";

Kernel Flat(const Kernel& looped) {
  Kernel flat = looped;
  flat.SetLoops(nullptr);
  return ParseKernel(FormatKernel(flat), "flat.nk");
}

void ExpectSameRecords(const ExecutionResult& a, const ExecutionResult& b) {
  ASSERT_EQ(a.instructions.size(), b.instructions.size());
  for (size_t i = 0; i < a.instructions.size(); ++i) {
    const InstructionRecord &x = a.instructions[i], &y = b.instructions[i];
    EXPECT_EQ(x.engine, y.engine);
    EXPECT_EQ(x.index, y.index);
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(x.wait, y.wait);
    EXPECT_EQ(x.busy_wait, y.busy_wait);
    EXPECT_EQ(x.dependency_wait, y.dependency_wait);
    EXPECT_EQ(x.table_load, y.table_load);
    EXPECT_EQ(x.signaller_index, y.signaller_index);
    EXPECT_EQ(x.signaller_engine, y.signaller_engine);
  }
  ASSERT_EQ(a.dma.size(), b.dma.size());
  for (size_t i = 0; i < a.dma.size(); ++i) {
    const DmaRecord &x = a.dma[i], &y = b.dma[i];
    EXPECT_EQ(x.dma_engine, y.dma_engine);
    EXPECT_EQ(x.queue, y.queue);
    EXPECT_EQ(x.trigger_engine, y.trigger_engine);
    EXPECT_EQ(x.index, y.index);
    EXPECT_EQ(x.bytes, y.bytes);
    EXPECT_EQ(x.descriptors, y.descriptors);
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(x.submitted, y.submitted);
    EXPECT_EQ(x.ready, y.ready);
  }
}

TEST(Loops, RunExactlyAsTheirWrittenOutForm) {
  testing::Run looped = testing::RunText("trn2", kLooped);
  ASSERT_NE(looped.kernel.loops(), nullptr);
  testing::Run flat;
  flat.device = std::make_unique<Device>(LoadHardwareConfig("trn2"));
  flat.kernel = Flat(looped.kernel);
  ASSERT_EQ(flat.kernel.loops(), nullptr);
  flat.result = flat.device->Execute(flat.kernel);

  EXPECT_EQ(looped.result.device_time, flat.result.device_time);
  ExpectSameRecords(looped.result, flat.result);
  EXPECT_EQ(looped.result.instructions.size(), 1u + 4 * 6);  // wt load, then 6 per iteration
  // out[i] = w^T @ (2 x[i]): every row sums 8 rows of 2 * x[i] (iota).
  const std::vector<float> out = looped.Read("out");
  EXPECT_EQ(out, flat.Read("out"));
  for (int i = 0; i < 4; ++i) {
    for (int c = 0; c < 16; ++c) {
      float column = 0;
      for (int r = 0; r < 8; ++r) column += 2.0f * static_cast<float>(i * 128 + r * 16 + c);
      EXPECT_EQ(out[static_cast<size_t>(i * 128 + 3 * 16 + c)], column) << "i=" << i << " c=" << c;
    }
  }
}

}  // namespace
}  // namespace nsim
