// The AVX2 build of the value kernels gives the portable build's bits for
// every ALU op, activation function, reduction, scan and iota, on data with
// signed zeros, infinities, NaNs, subnormals and lengths with vector tails.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <limits>
#include <random>
#include <vector>

#include "sim/base/host_cpu.h"
#include "sim/isa/value_kernel_loops.h"  // the portable build, compiled into this test
#include "sim/isa/value_kernels_avx2.h"

namespace nsim {
namespace isa {
namespace {

namespace avx2 = value_kernels_avx2;

std::vector<float> Data(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 4.0f);
  const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min(), 1e30f, -1e-30f, 1.0f, 0.5f};
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = i % 7 == 3 ? specials[(i / 7) % 10] : dist(rng);
  return v;
}

// Same bits, except that a NaN only needs to be a NaN: when two NaNs meet in
// a commutative op (a + b with both NaN), x86 returns the first operand's,
// and the compiler may order the operands either way in either build.
void ExpectSameBits(const std::vector<float>& want, const std::vector<float>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]) && std::isnan(got[i])) continue;
    uint32_t w, g;
    std::memcpy(&w, &want[i], 4);
    std::memcpy(&g, &got[i], 4);
    ASSERT_EQ(w, g) << what << " element " << i << ": " << want[i] << " vs " << got[i];
  }
}

constexpr int64_t kN = 1037;  // not a multiple of any vector width

TEST(ValueKernelsTest, Avx2BuildMatchesPortableBuild) {
  if (!HostHasAvx2Fma()) GTEST_SKIP() << "host without AVX2";
  const std::vector<float> a = Data(kN, 1), b = Data(kN, 2);
  for (int o = 0; o < kNumAluOps; ++o) {
    const AluOp op = static_cast<AluOp>(o);
    std::vector<float> want = a, got = a;
    loops::AluVector(op, want.data(), b.data(), kN);
    avx2::AluVector(op, got.data(), b.data(), kN);
    ExpectSameBits(want, got, std::string("AluVector ") + AluOpName(op));
    for (float s : {2.5f, -0.0f, std::numeric_limits<float>::quiet_NaN()}) {
      want = a, got = a;
      loops::AluScalar(op, want.data(), s, kN);
      avx2::AluScalar(op, got.data(), s, kN);
      ExpectSameBits(want, got, std::string("AluScalar ") + AluOpName(op));
    }
    for (int o1 = 0; o1 < kNumAluOps; o1 += 3) {
      want = a, got = a;
      loops::ScanRow(op, static_cast<AluOp>(o1), want.data(), b.data(), 0.25f, kN);
      avx2::ScanRow(op, static_cast<AluOp>(o1), got.data(), b.data(), 0.25f, kN);
      ExpectSameBits(want, got, std::string("ScanRow ") + AluOpName(op));
    }
  }
  for (int f = 0; f < kNumActFuncs; ++f) {
    std::vector<float> want = a, got = a;
    loops::ActivateRow(static_cast<ActFunc>(f), want.data(), 1.5f, -0.25f, kN);
    avx2::ActivateRow(static_cast<ActFunc>(f), got.data(), 1.5f, -0.25f, kN);
    ExpectSameBits(want, got, std::string("ActivateRow ") + ActFuncName(static_cast<ActFunc>(f)));
    ExpectSameBits({loops::SumRow(want.data(), kN)}, {avx2::SumRow(want.data(), kN)}, "SumRow");
  }
  for (int r = 0; r < kNumReduceOps; ++r) {
    for (int64_t rows : {1, 8, 17}) {
      const int64_t n = kN / rows;
      std::vector<float> want(rows), got(rows);
      loops::ReduceRows(static_cast<ReduceOp>(r), a.data(), rows, n, want.data());
      avx2::ReduceRows(static_cast<ReduceOp>(r), a.data(), rows, n, got.data());
      ExpectSameBits(want, got, std::string("ReduceRows ") + ReduceOpName(static_cast<ReduceOp>(r)));
    }
  }
  std::vector<float> want(kN), got(kN);
  loops::IotaRow(0.1, 1.0 / 3.0, static_cast<int32_t>(kN), want.data());
  avx2::IotaRow(0.1, 1.0 / 3.0, static_cast<int32_t>(kN), got.data());
  ExpectSameBits(want, got, "IotaRow");
}

// The side-by-side row folds keep each row's left-to-right order.
TEST(ValueKernelsTest, ReduceRowsFoldsEachRowLeftToRight) {
  // Row r: 2^24, then r + 1 ones; left to right each 1 is lost to rounding.
  const int64_t rows = 11, n = 12;
  std::vector<float> x(rows * n, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    x[r * n] = 16777216.0f;
    for (int64_t i = 1; i <= r + 1 && i < n; ++i) x[r * n + i] = 1.0f;
  }
  std::vector<float> out(rows);
  loops::ReduceRows(ReduceOp::kSum, x.data(), rows, n, out.data());
  for (int64_t r = 0; r < rows; ++r) EXPECT_EQ(out[r], 16777216.0f) << r;
}

}  // namespace
}  // namespace isa
}  // namespace nsim
