// tensor_tensor_scan: values against a plain-loop reference of the NKI
// semantics, per-partition `initial` columns, and its S11 cost.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sim/base/error.h"

#include "sim/model/test_util.h"

namespace nsim {
namespace {

using testing::RunText;

// result[p, i] = op1(op0(data0[p, i], result[p, i-1]), data1[p, i]), result[p, -1] = initial.
std::vector<float> Reference(const std::vector<float>& a, const std::vector<float>& b, int parts, int n,
                             const std::vector<float>& initial, float (*op0)(float, float),
                             float (*op1)(float, float)) {
  std::vector<float> out(a.size());
  for (int p = 0; p < parts; ++p) {
    float carry = initial[p];
    for (int i = 0; i < n; ++i) out[p * n + i] = carry = op1(op0(a[p * n + i], carry), b[p * n + i]);
  }
  return out;
}

float Mul(float x, float y) { return x * y; }
float Add(float x, float y) { return x + y; }
float Max(float x, float y) { return std::max(x, y); }

// The linear recurrence of a Mamba-style scan: h[i] = a[i] * h[i-1] + b[i].
TEST(TensorTensorScan, LinearRecurrenceMatchesReference) {
  auto r = RunText("trn2", R"(kernel scan
tensor a  hbm  f32 [16, 40] init=rand(seed=1)
tensor b  hbm  f32 [16, 40] init=randn(seed=2)
tensor y  hbm  f32 [16, 40]
tensor as sbuf f32 [16, 40]
tensor bs sbuf f32 [16, 40]
tensor ys sbuf f32 [16, 40]
semaphore s
sync: dma_copy as, a signal=s
sync: dma_copy bs, b signal=s
vector: tensor_tensor_scan ys, as, bs op0=multiply op1=add initial=0.5 wait=s>=2 signal=s
sync: dma_copy y, ys wait=s>=3
)");
  const auto a = r.Read("a"), b = r.Read("b"), y = r.Read("y");
  const auto ref = Reference(a, b, 16, 40, std::vector<float>(16, 0.5f), Mul, Add);
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_FLOAT_EQ(y[i], ref[i]) << i;
}

// initial as a [P, 1] column; bf16 output rounds each element, the carry stays fp32.
TEST(TensorTensorScan, ColumnInitialAndBf16Output) {
  auto r = RunText("trn2", R"(kernel scan
tensor a  hbm  f32  [8, 24] init=randn(seed=3)
tensor b  hbm  f32  [8, 24] init=randn(seed=4)
tensor c  hbm  f32  [8, 1]  init=randn(seed=5)
tensor y  hbm  bf16 [8, 24]
tensor as sbuf f32  [8, 24]
tensor bs sbuf f32  [8, 24]
tensor cs sbuf f32  [8, 1]
tensor ys sbuf bf16 [8, 24]
semaphore s
sync: dma_copy as, a signal=s
sync: dma_copy bs, b signal=s
sync: dma_copy cs, c signal=s
vector: tensor_tensor_scan ys, as, bs op0=max op1=add initial=cs wait=s>=3 signal=s
sync: dma_copy y, ys wait=s>=4
)");
  const auto a = r.Read("a"), b = r.Read("b"), c = r.Read("c"), y = r.Read("y");
  const auto ref = Reference(a, b, 8, 24, c, Max, Add);
  for (size_t i = 0; i < ref.size(); ++i) {
    ASSERT_NEAR(y[i], ref[i], std::abs(ref[i]) * (1.0f / 256) + 1e-6f) << i;  // bf16: 8 significant bits
  }
}

// S11: tensor_tensor_scan costs max(MIN_II, 2N) VectorE cycles, tensor_scalar
// (f32, no performance mode) max(MIN_II, N). With N = 512 the scan takes N =
// 512 cycles longer: 512 / 0.96 GHz (trn2 vector.freq) = 533.33 ns.
TEST(TensorTensorScan, CostsTwoCyclesPerElement) {
  auto r = RunText("trn2", R"(kernel scan_cost
tensor xs sbuf f32 [128, 512]
tensor ys sbuf f32 [128, 512]
tensor zs sbuf f32 [128, 512]
vector: memset xs value=1
vector: tensor_scalar ys, xs op0=multiply scalar0=0.5
vector: tensor_tensor_scan zs, xs, ys op0=multiply op1=add initial=0
)");
  const double scan_ns = PicosToNanos(r.Duration(EngineId::kVector, 2));
  const double ts_ns = PicosToNanos(r.Duration(EngineId::kVector, 1));
  EXPECT_NEAR(scan_ns - ts_ns, 512 / 0.96, 0.01);
}

TEST(TensorTensorScan, RejectsMismatchedShapes) {
  EXPECT_THROW(RunText("trn2", R"(kernel bad
tensor xs sbuf f32 [128, 512]
tensor ys sbuf f32 [128, 256]
vector: tensor_tensor_scan xs, xs, ys op0=multiply op1=add initial=0
)"),
               SimError);
}

}  // namespace
}  // namespace nsim
