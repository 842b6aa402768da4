// Element-wise instructions run a block of rows at a time (common.h
// ElementwiseRows): on tiles of many blocks their values equal a plain
// reference over the whole tile, including a dst that overlaps its source
// shifted by a partition (which must read every source row before writing).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/base/dtype.h"
#include "sim/isa/common.h"
#include "sim/model/test_util.h"

namespace nsim {
namespace {

using testing::RunText;

constexpr int kParts = 128, kFree = 1000;  // 1000 > kRowBlockElements / 4: blocks of 2 rows
static_assert(kFree * 2 <= isa::kRowBlockElements && kFree * 3 > isa::kRowBlockElements, "2-row blocks");

// Loads x (randn) into xs, runs `body`, stores the named sbuf tensor into y.
std::vector<float> RunBody(const std::string& body, const std::string& result, std::vector<float>* x) {
  const std::string shape = "[" + std::to_string(kParts) + ", " + std::to_string(kFree) + "]";
  auto r = RunText("trn2", "kernel rows\n"
                           "tensor x hbm bf16 " + shape + " init=randn(seed=3)\n"
                           "tensor y hbm bf16 " + shape + "\n"
                           "tensor xs sbuf bf16 " + shape + "\n"
                           "tensor zs sbuf bf16 " + shape + "\n"
                           "tensor sums sbuf f32 [" + std::to_string(kParts) + ", 1]\n"
                           "tensor s hbm f32 [" + std::to_string(kParts) + ", 1]\n"
                           "semaphore done\n"
                           "sync: dma_copy xs, x signal=done\n" +
                           body + " wait=done>=1 signal=done\n"
                           "sync: dma_copy y, " + result + " wait=done>=2\n"
                           "sync: dma_copy s, sums wait=done>=2\n");
  *x = r.Read("x");
  std::vector<float> y = r.Read("y");
  const std::vector<float> sums = r.Read("s");
  y.insert(y.end(), sums.begin(), sums.end());  // the sums column after the tile
  return y;
}

float At(const std::vector<float>& t, int p, int i) { return t[static_cast<size_t>(p) * kFree + i]; }

TEST(ElementwiseRows, TensorTensorInPlaceMatchesReference) {
  std::vector<float> x;
  const std::vector<float> y = RunBody("vector: tensor_tensor xs, xs, xs op=multiply", "xs", &x);
  for (int p = 0; p < kParts; ++p)
    for (int i = 0; i < kFree; ++i) ASSERT_EQ(At(y, p, i), RoundTo(DType::kBF16, At(x, p, i) * At(x, p, i))) << p << " " << i;
}

TEST(ElementwiseRows, ActivationWithAccumulatorMatchesReference) {
  std::vector<float> x;
  const std::vector<float> y = RunBody("scalar: activation zs, xs func=square scale=0.5 acc=sums", "zs", &x);
  for (int p = 0; p < kParts; ++p) {
    float sum = 0.0f;
    for (int i = 0; i < kFree; ++i) {
      const float v = (At(x, p, i) * 0.5f + 0.0f) * (At(x, p, i) * 0.5f + 0.0f);
      sum += v;
      ASSERT_EQ(At(y, p, i), RoundTo(DType::kBF16, v)) << p << " " << i;
    }
    EXPECT_EQ(y[static_cast<size_t>(kParts) * kFree + p], sum) << p;
  }
}

// dst one partition above its source in the same tensor: row p's result
// lands where row p + 1 is read from, so every row must be read first.
TEST(ElementwiseRows, CopyOntoItsSourceShiftedUpReadsEveryRowFirst) {
  std::vector<float> x;
  const std::vector<float> y = RunBody("vector: tensor_scalar xs[1:128], xs[0:127] op0=add scalar0=1", "xs", &x);
  for (int i = 0; i < kFree; ++i) ASSERT_EQ(At(y, 0, i), At(x, 0, i));
  for (int p = 1; p < kParts; ++p)
    for (int i = 0; i < kFree; ++i) ASSERT_EQ(At(y, p, i), RoundTo(DType::kBF16, At(x, p - 1, i) + 1.0f)) << p << " " << i;
}

// Shifted down, the rows may go block by block: each dst row's partition was read already.
TEST(ElementwiseRows, CopyOntoItsSourceShiftedDown) {
  std::vector<float> x;
  const std::vector<float> y = RunBody("vector: tensor_copy xs[0:127], xs[1:128]", "xs", &x);
  for (int p = 0; p + 1 < kParts; ++p)
    for (int i = 0; i < kFree; ++i) ASSERT_EQ(At(y, p, i), At(x, p + 1, i)) << p << " " << i;
  for (int i = 0; i < kFree; ++i) ASSERT_EQ(At(y, kParts - 1, i), At(x, kParts - 1, i));
}

// Rows that are not one run (every other element): the general walk per row.
TEST(ElementwiseRows, GappedRowsMatchReference) {
  std::vector<float> x;
  const std::vector<float> y = RunBody("vector: tensor_copy zs[:, 0:1000:2], xs[:, 1:1000:2]", "zs", &x);
  for (int p = 0; p < kParts; ++p) {
    for (int i = 0; i < kFree; ++i) ASSERT_EQ(At(y, p, i), i % 2 == 0 ? At(x, p, i + 1) : 0.0f) << p << " " << i;
  }
}

TEST(ElementwiseRows, ReduceOverBlocksMatchesReference) {
  std::vector<float> x;
  const std::vector<float> y = RunBody("vector: tensor_reduce sums, xs op=sum", "xs", &x);
  for (int p = 0; p < kParts; ++p) {
    float sum = At(x, p, 0);
    for (int i = 1; i < kFree; ++i) sum += At(x, p, i);
    EXPECT_EQ(y[static_cast<size_t>(kParts) * kFree + p], sum) << p;
  }
}

}  // namespace
}  // namespace nsim
