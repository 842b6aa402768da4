// Values: every instruction class computes what an Eigen / plain-loop
// reference computes, with bf16 outputs rounded to nearest even.
#include <Eigen/Core>
#include <cmath>
#include <gtest/gtest.h>

#include "sim/kernel/hash.h"
#include "sim/model/loaded_kernel.h"
#include "sim/model/test_util.h"

namespace nsim {
namespace {

using testing::RunText;
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Inputs drawn by the model's own init= generator are read back from the device.
TEST(Functional, MatmulMatchesEigen) {
  auto r = RunText("trn2", R"(kernel mm
tensor w  hbm  bf16 [128, 64] init=randn(seed=1)
tensor x  hbm  bf16 [128, 256] init=randn(seed=2)
tensor y  hbm  f32  [64, 256]
tensor ws sbuf bf16 [128, 64]
tensor xs sbuf bf16 [128, 256]
tensor ps psum f32  [64, 256]
tensor ys sbuf f32  [64, 256]
semaphore in
semaphore mm
semaphore cp
sync:   dma_copy ws, w signal=in
sync:   dma_copy xs, x queue=1 signal=in
tensor: matmul ps, ws, xs wait=in>=2 signal=mm
vector: tensor_copy ys, ps wait=mm>=1 signal=cp
sync:   dma_copy y, ys wait=cp>=1
)");
  const auto w = r.Read("w"), x = r.Read("x"), y = r.Read("y");
  Eigen::Map<const RowMajor> W(w.data(), 128, 64), X(x.data(), 128, 256);
  const RowMajor ref = W.transpose() * X;
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 256; ++j) ASSERT_NEAR(y[i * 256 + j], ref(i, j), 1e-3f) << i << "," << j;
}

// at=: y reuses x's bytes once x's last reader is done (the semaphore);
// z holds x's values, y the new ones, and the loader placed z after both.
TEST(Functional, TensorsSharingBytesHoldEachValueInTurn) {
  auto r = RunText("trn2", R"(kernel reuse
tensor a  hbm  f32 [128, 16] init=rand(seed=4)
tensor b  hbm  f32 [128, 16] init=rand(seed=5)
tensor za hbm  f32 [128, 16]
tensor yb hbm  f32 [128, 16]
tensor x  sbuf f32 [128, 16] at=0
tensor y  sbuf f32 [128, 16] at=0
tensor z  sbuf f32 [128, 16]
semaphore loaded
semaphore copied
semaphore stored
sync:   dma_copy x, a signal=loaded
vector: tensor_copy z, x wait=loaded>=1 signal=copied
sync:   dma_copy y, b wait=copied>=1 signal=loaded
sync:   dma_copy za, z wait=copied>=1 signal=stored
sync:   dma_copy yb, y wait=loaded>=2 signal=stored
)");
  EXPECT_EQ(r.Read("za"), r.Read("a"));
  EXPECT_EQ(r.Read("yb"), r.Read("b"));
}

TEST(Functional, MatmulAccumulatesInPsum) {
  auto r = RunText("trn2", R"(kernel acc
tensor a hbm f32 [8, 4] init=rand(seed=3)
tensor b hbm f32 [8, 5] init=rand(seed=4)
tensor y hbm f32 [4, 5]
tensor as sbuf f32 [8, 4]
tensor bs sbuf f32 [8, 5]
tensor ps psum f32 [4, 5]
tensor ys sbuf f32 [4, 5]
semaphore s
sync: dma_copy as, a signal=s
sync: dma_copy bs, b signal=s
tensor: matmul ps, as, bs wait=s>=2
tensor: matmul ps, as, bs accumulate=true signal=s
vector: tensor_copy ys, ps wait=s>=3 signal=s
sync: dma_copy y, ys wait=s>=4
)");
  const auto a = r.Read("a"), b = r.Read("b"), y = r.Read("y");
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) {
      float ref = 0;
      for (int k = 0; k < 8; ++k) ref += a[k * 4 + i] * b[k * 5 + j];
      EXPECT_NEAR(y[i * 5 + j], 2 * ref, 1e-5f);
    }
}

TEST(Functional, ElementwiseRoundsToBf16) {
  // 1 + 2^-9 is not representable in bf16: the sum is rounded to nearest even (1.0).
  auto r = RunText("trn2", R"(kernel add
tensor a hbm f32 [2, 4] init=ones
tensor b hbm f32 [2, 4] init=const(0.001953125)
tensor y hbm bf16 [2, 4]
tensor as sbuf f32 [2, 4]
tensor bs sbuf f32 [2, 4]
tensor ys sbuf bf16 [2, 4]
semaphore s
sync: dma_copy as, a signal=s
sync: dma_copy bs, b signal=s
vector: tensor_tensor ys, as, bs op=add wait=s>=2 signal=s
sync: dma_copy y, ys wait=s>=3
)");
  for (float v : r.Read("y")) EXPECT_EQ(v, 1.0f);
}

TEST(Functional, TensorScalarReduceActivationAgainstReference) {
  auto r = RunText("trn2", R"(kernel mix
tensor x hbm bf16 [4, 64] init=randn(seed=7)
tensor y hbm bf16 [4, 64]
tensor m hbm f32 [4, 1]
tensor e hbm f32 [4, 64]
tensor xs sbuf bf16 [4, 64]
tensor ys sbuf bf16 [4, 64]
tensor ms sbuf f32 [4, 1]
tensor es sbuf f32 [4, 64]
tensor acc sbuf f32 [4, 1]
semaphore s
sync:   dma_copy xs, x signal=s
vector: tensor_scalar ys, xs op0=multiply scalar0=3 op1=add scalar1=0.5 wait=s>=1 signal=s
vector: tensor_reduce ms, xs op=max wait=s>=1 signal=s
scalar: activation es, xs func=exp scale=0.5 bias=ms acc=acc wait=s>=3 signal=s
sync:   dma_copy y, ys wait=s>=4
sync:   dma_copy m, ms
sync:   dma_copy e, es
)");
  const auto x = r.Read("x"), y = r.Read("y"), m = r.Read("m"), e = r.Read("e");
  for (int p = 0; p < 4; ++p) {
    float mx = -INFINITY;
    for (int i = 0; i < 64; ++i) mx = std::max(mx, x[p * 64 + i]);
    EXPECT_EQ(m[p], mx);
    for (int i = 0; i < 64; ++i) {
      EXPECT_EQ(y[p * 64 + i], RoundTo(DType::kBF16, x[p * 64 + i] * 3 + 0.5f));
      EXPECT_NEAR(e[p * 64 + i], std::exp(x[p * 64 + i] * 0.5f + mx), 1e-4f * std::exp(x[p * 64 + i] * 0.5f + mx));
    }
  }
}

TEST(Functional, StridedDmaAndTranspose) {
  // Load every other column, transpose it through the PE array.
  auto r = RunText("trn2", R"(kernel tr
tensor x hbm f32 [8, 16] init=iota
tensor y hbm f32 [8, 8]
tensor xs sbuf f32 [8, 8]
tensor tp psum f32 [8, 8]
tensor ys sbuf f32 [8, 8]
semaphore s
sync:   dma_copy xs, x[:, 0:16:2] signal=s
tensor: transpose tp, xs wait=s>=1 signal=s
vector: tensor_copy ys, tp wait=s>=2 signal=s
sync:   dma_copy y, ys wait=s>=3
)");
  const auto y = r.Read("y");
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(y[i * 8 + j], static_cast<float>(j * 16 + 2 * i));
}

TEST(Functional, GpSimdIotaAndPartitionReduce) {
  auto r = RunText("trn2", R"(kernel g
tensor y hbm f32 [1, 4]
tensor a sbuf f32 [8, 4]
tensor s sbuf f32 [1, 4]
semaphore d
gpsimd: iota a base=1 partition_step=10 free_step=1
gpsimd: partition_reduce s, a op=sum signal=d
sync:   dma_copy y, s wait=d>=1
)");
  const auto y = r.Read("y");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y[i], 8 * (1 + i) + 10 * 28);  // sum_p (1 + 10p + i)
}

}  // namespace
}  // namespace nsim

namespace nsim {
namespace {

// Every ScalarE function and VectorE ALU op against a scalar reference.
struct FuncCase {
  const char* name;
  double (*ref)(double);
};

TEST(Functional, EveryActivationFunction) {
  const FuncCase cases[] = {
      {"identity", [](double x) { return x; }},
      {"exp", [](double x) { return std::exp(x); }},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); }},
      {"sqrt", [](double x) { return std::sqrt(x); }},
      {"reciprocal", [](double x) { return 1 / x; }},
      {"silu", [](double x) { return x / (1 + std::exp(-x)); }},
      {"gelu", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"square", [](double x) { return x * x; }},
      {"relu", [](double x) { return x > 0 ? x : 0; }},
      {"log", [](double x) { return std::log(x); }},
  };
  for (const FuncCase& c : cases) {
    // Inputs in (0.05, 3.25]: positive so rsqrt/sqrt/log/reciprocal are defined.
    auto r = testing::RunText("trn2", std::string(R"(kernel act
tensor x hbm f32 [2, 16] init=iota
tensor y hbm f32 [2, 16]
tensor xs sbuf f32 [2, 16]
tensor ys sbuf f32 [2, 16]
semaphore s
sync:   dma_copy xs, x signal=s
scalar: activation ys, xs func=)") + c.name + R"( scale=0.1 bias=0.05 wait=s>=1 signal=s
sync:   dma_copy y, ys wait=s>=2
)");
    const auto y = r.Read("y");
    for (int i = 0; i < 32; ++i) {
      const double want = c.ref(0.1 * i + 0.05);
      EXPECT_NEAR(y[i], want, 1e-5 * std::max(1.0, std::fabs(want))) << c.name << " at " << i;
    }
  }
}

TEST(Functional, EveryAluOp) {
  struct AluCase {
    const char* name;
    double (*ref)(double, double);
  };
  const AluCase cases[] = {
      {"add", [](double a, double b) { return a + b; }},      {"subtract", [](double a, double b) { return a - b; }},
      {"multiply", [](double a, double b) { return a * b; }}, {"max", [](double a, double b) { return std::max(a, b); }},
      {"min", [](double a, double b) { return std::min(a, b); }}, {"divide", [](double a, double b) { return a / b; }},
      {"pow", [](double a, double b) { return std::pow(a, b); }},
  };
  for (const AluCase& c : cases) {
    auto r = testing::RunText("trn2", std::string(R"(kernel alu
tensor a hbm f32 [4, 8] init=rand(seed=5)
tensor b hbm f32 [4, 8] init=rand(seed=6)
tensor y hbm f32 [4, 8]
tensor as sbuf f32 [4, 8]
tensor bs sbuf f32 [4, 8]
tensor ys sbuf f32 [4, 8]
semaphore s
sync:   dma_copy as, a signal=s
sync:   dma_copy bs, b signal=s
vector: tensor_tensor ys, as, bs op=)") + c.name + R"( wait=s>=2 signal=s
sync:   dma_copy y, ys wait=s>=3
)");
    const auto a = r.Read("a"), b = r.Read("b"), y = r.Read("y");
    for (int i = 0; i < 32; ++i) {
      const double want = static_cast<float>(c.ref(a[i], b[i]));
      EXPECT_NEAR(y[i], want, 1e-6 * std::max(1.0, std::fabs(want))) << c.name << " at " << i;
    }
  }
}

TEST(Functional, ReduceOpsAndMean) {
  auto r = testing::RunText("trn2", R"(kernel red
tensor x hbm f32 [3, 2, 5] init=randn(seed=9)
tensor s hbm f32 [3, 2]
tensor m hbm f32 [3, 2]
tensor n hbm f32 [3, 2]
tensor mn hbm f32 [3, 2]
tensor xs sbuf f32 [3, 2, 5]
tensor ss sbuf f32 [3, 2]
tensor ms sbuf f32 [3, 2]
tensor ns sbuf f32 [3, 2]
tensor mns sbuf f32 [3, 2]
semaphore d
sync:   dma_copy xs, x signal=d
vector: tensor_reduce ss, xs op=sum wait=d>=1
vector: tensor_reduce ms, xs op=max
vector: tensor_reduce ns, xs op=mean
vector: tensor_reduce mns, xs op=min signal=d
sync:   dma_copy s, ss wait=d>=2
sync:   dma_copy m, ms
sync:   dma_copy n, ns
sync:   dma_copy mn, mns
)");
  const auto x = r.Read("x"), s = r.Read("s"), m = r.Read("m"), n = r.Read("n"), mn = r.Read("mn");
  for (int row = 0; row < 6; ++row) {
    float sum = 0, mx = -INFINITY, mi = INFINITY;
    for (int i = 0; i < 5; ++i) {
      sum += x[row * 5 + i];
      mx = std::max(mx, x[row * 5 + i]);
      mi = std::min(mi, x[row * 5 + i]);
    }
    EXPECT_NEAR(s[row], sum, 1e-5f);
    EXPECT_EQ(m[row], mx);
    EXPECT_EQ(mn[row], mi);
    EXPECT_NEAR(n[row], sum / 5, 1e-5f);
  }
}

// A load hashes the kernel (KernelHash) unless the caller passes the hash it
// computed already (the runtime's cache key), which is then taken as is.
TEST(Functional, LoadHashesTheKernelUnlessGivenItsHash) {
  const Kernel k = ParseKernel(R"(kernel copy
tensor x hbm bf16 [4, 8] init=ones
tensor xs sbuf bf16 [4, 8]
sync: dma_copy xs, x
)", "copy.nk");
  const Device device(LoadHardwareConfig("trn2"));
  EXPECT_EQ(device.Load(k)->hash(), KernelHash(k));
  EXPECT_EQ(device.Load(k, KernelHash(k))->hash(), KernelHash(k));
  EXPECT_EQ(device.Load(k, uint64_t{42})->hash(), 42u);  // not hashed again
}

}  // namespace
}  // namespace nsim
