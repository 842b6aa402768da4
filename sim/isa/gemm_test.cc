// The TensorE product sums each output in partition order, from +0, with one
// fp32 rounding per addition, on every code path (portable, AVX2, AVX2 with
// fused multiply-adds where products are exact): bit-identical to the plain
// triple loop below.
#include "sim/isa/gemm.h"

#include "sim/base/host_cpu.h"
#include "sim/isa/gemm_kernel.h"  // the bf16 qualification, compared exhaustively

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace nsim {
namespace isa {
namespace {

// `out` holds PSUM's values when accumulating, else anything.
std::vector<float> Reference(const std::vector<float>& a, const std::vector<float>& b, int64_t kk, int64_t m,
                             int64_t n, const std::vector<float>* psum = nullptr) {
  std::vector<float> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < kk; ++k) {
        const float product = a[k * m + i] * b[k * n + j];  // rounded, then added
        acc = acc + product;
      }
      out[i * n + j] = psum != nullptr ? (*psum)[i * n + j] + acc : acc;
    }
  }
  return out;
}

typedef float V4 __attribute__((vector_size(16)));

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}


// Rounds to bf16's 8 significant bits (truncation is enough for test data).
float Bf16(float f) {
  const uint32_t u = Bits(f) & 0xffff0000u;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

std::vector<float> Random(int64_t count, bool bf16, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = bf16 ? Bf16(dist(rng)) : dist(rng);
  return v;
}

void ExpectSame(const std::vector<float>& want, const std::vector<float>& got, const char* path, int64_t kk,
                int64_t m, int64_t n) {
  for (size_t i = 0; i < want.size(); ++i) {
    const bool both_nan = std::isnan(want[i]) && std::isnan(got[i]);
    ASSERT_TRUE(both_nan || Bits(want[i]) == Bits(got[i]))
        << path << " K=" << kk << " M=" << m << " N=" << n << " element " << i << ": want " << want[i] << " got "
        << got[i];
  }
}

// Whether every value is a bf16 value (its low 16 bits zero).
bool AllBf16(const std::vector<float>& v) {
  for (float x : v)
    if ((Bits(x) & 0xffffu) != 0) return false;
  return true;
}

// x's K rows of `width` as bf16 rows `pitch` bytes apart, starting one byte
// into the buffer (unaligned, with gaps between rows).
std::vector<uint8_t> Bf16Buffer(const std::vector<float>& x, int64_t width, int64_t pitch) {
  const int64_t rows = static_cast<int64_t>(x.size()) / width;
  std::vector<uint8_t> buf(static_cast<size_t>(1 + rows * pitch), 0xee);
  for (int64_t k = 0; k < rows; ++k) {
    for (int64_t i = 0; i < width; ++i) {
      const uint16_t h = static_cast<uint16_t>(Bits(x[k * width + i]) >> 16);
      std::memcpy(buf.data() + 1 + k * pitch + 2 * i, &h, 2);
    }
  }
  return buf;
}

// Whether the bf16 dot-product kernel takes a value: zero, or a magnitude in
// [2^-56, 2^56) (gemm_bf16_dot.cc), written here on the float.
bool InDotRange(float x) {
  const float mag = std::fabs(x);
  return mag == 0.0f || (mag >= 0x1p-56f && mag < 0x1p56f);
}
bool DotTakes(const std::vector<float>& a, const std::vector<float>& b, int64_t n) {
  auto in_range = [](const std::vector<float>& v) { return std::all_of(v.begin(), v.end(), InDotRange); };
  return n >= 16 && n % 16 == 0 && in_range(a) && in_range(b);
}
// The shapes the AVX2 bf16 kernel takes (gemm_kernel.h Bf16Packable with
// 8-float vectors).
bool Avx2Bf16Takes(int64_t kk, int64_t m, int64_t n) { return m >= 6 && n >= 32 && n % 16 == 0 && kk >= 8; }

// Every path on one problem, writing fresh outputs and accumulating onto `psum`.
void CheckAllPaths(const std::vector<float>& a, const std::vector<float>& b, int64_t kk, int64_t m, int64_t n) {
  const std::vector<float> psum = Random(m * n, false, static_cast<uint32_t>(kk * 1000 + m * 10 + n));
  for (bool accumulate : {false, true}) {
    const std::vector<float> want = Reference(a, b, kk, m, n, accumulate ? &psum : nullptr);
    auto run = [&](const char* path, auto&& f) {
      std::vector<float> got = accumulate ? psum : std::vector<float>(want.size(), 12345.0f);
      f(gemm_internal::GemmArgs{a.data(), b.data(), got.data(), n, kk, m, n, accumulate});
      ExpectSame(want, got, path, kk, m, n);
    };
    run("dispatched", [](const gemm_internal::GemmArgs& g) {
      MatmulPartitionOrder(g.a, g.b, g.out, g.out_stride, g.k_size, g.m_size, g.n_size, g.accumulate);
    });
    run("portable", [](const gemm_internal::GemmArgs& g) { gemm_internal::MatmulPortable(g); });
    if (AllBf16(a) && AllBf16(b)) {
      const std::vector<uint8_t> abuf = Bf16Buffer(a, m, 2 * m + 6), bbuf = Bf16Buffer(b, n, 2 * n + 2);
      const Bf16Rows ar{abuf.data() + 1, 2 * m + 6}, br{bbuf.data() + 1, 2 * n + 2};
      const bool dot = HostHasAvx512Bf16() && DotTakes(a, b, n);
      run("bf16 rows", [&](const gemm_internal::GemmArgs& g) {
        const bool taken = MatmulBf16PartitionOrder(ar, br, g.out, g.out_stride, g.k_size, g.m_size, g.n_size,
                                                    g.accumulate);
        ASSERT_EQ(taken, kk * m * n <= gemm_internal::kSmallProduct || dot ||
                             (HostHasAvx2Fma() && Avx2Bf16Takes(kk, m, n)));
        if (!taken) MatmulPartitionOrder(g.a, g.b, g.out, g.out_stride, g.k_size, g.m_size, g.n_size, g.accumulate);
      });
      if (HostHasAvx2Fma() && Avx2Bf16Takes(kk, m, n)) {
        run("bf16 rows, avx2", [&](const gemm_internal::GemmArgs& g) {
          ASSERT_TRUE(gemm_internal::MatmulBf16Avx2(ar, br, g));
        });
      }
      if (HostHasAvx512Bf16()) {
        run("bf16 rows, dot products", [&](const gemm_internal::GemmArgs& g) {
          const bool taken = gemm_internal::MatmulBf16Dot(ar, br, g);
          ASSERT_EQ(taken, dot);
          if (!taken) MatmulPartitionOrder(g.a, g.b, g.out, g.out_stride, g.k_size, g.m_size, g.n_size, g.accumulate);
        });
      }
    }
    if (!HostHasAvx2Fma()) continue;
    using gemm_internal::Fusion;
    run("avx2", [](const gemm_internal::GemmArgs& g) { gemm_internal::MatmulAvx2(g, Fusion::kNever); });
    if (ProductsExact(a.data(), kk * m, b.data(), kk * n)) {
      run("avx2 fused", [](const gemm_internal::GemmArgs& g) { gemm_internal::MatmulAvx2(g, Fusion::kAlways); });
    }
  }
}

// Rows of the output `stride` floats apart leave the gaps untouched.
TEST(GemmTest, WritesRowsAtTheirStride) {
  const int64_t kk = 5, m = 7, n = 20, stride = 29;
  const std::vector<float> a = Random(kk * m, true, 3), b = Random(kk * n, true, 4);
  const std::vector<float> want = Reference(a, b, kk, m, n);
  std::vector<float> got(static_cast<size_t>(m * stride), -7.0f);
  MatmulPartitionOrder(a.data(), b.data(), got.data(), stride, kk, m, n, false);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < stride; ++j) {
      EXPECT_EQ(Bits(got[i * stride + j]), Bits(j < n ? want[i * n + j] : -7.0f)) << i << "," << j;
    }
  }
}

TEST(GemmTest, EveryPathMatchesThePartitionOrderLoop) {
  uint32_t seed = 1;
  for (int64_t kk : {1, 2, 7, 64, 128}) {
    for (int64_t m : {1, 5, 6, 7, 8, 9, 13, 16, 128}) {  // every last-panel split (PanelRows)
      for (int64_t n : {1, 3, 4, 8, 15, 16, 17, 40, 48, 512}) {
        for (bool bf16 : {true, false}) {
          CheckAllPaths(Random(kk * m, bf16, seed), Random(kk * n, bf16, seed + 1), kk, m, n);
          seed += 2;
        }
      }
    }
  }
}

TEST(GemmTest, SumsInPartitionOrder) {
  // (0 + 2^24 * 1) + 1 rounds back to 2^24 (ties to even), minus 2^24 is 0;
  // any other order of the three products would give 1.
  const std::vector<float> a = {1.0f, 1.0f, 1.0f};             // [K=3, M=1]
  const std::vector<float> b = {16777216.0f, 1.0f, -16777216.0f};  // [K=3, N=1]
  float out = -1.0f;
  MatmulPartitionOrder(a.data(), b.data(), &out, 1, 3, 1, 1, false);
  EXPECT_EQ(out, 0.0f);
}

// The same on the bf16 paths, where partitions go in pairs: 1 + 2^24 rounds
// to 2^24 (a tie, to even), + 1 likewise, - 2^24 gives 0; each pair summed
// the other way round would end at 1.
TEST(GemmTest, Bf16PathsSumInPartitionOrder) {
  const int64_t kk = 4, m = 6, n = 32;
  const std::vector<float> a(kk * m, 1.0f);
  std::vector<float> b = Random(kk * n, true, 5);
  const float column[kk] = {1.0f, 16777216.0f, 1.0f, -16777216.0f};
  for (int64_t k = 0; k < kk; ++k) b[k * n] = column[k];
  ASSERT_EQ(Reference(a, b, kk, m, n)[0], 0.0f);
  CheckAllPaths(a, b, kk, m, n);
}

TEST(GemmTest, ProductsExactOnlyForShortSignificandsInRange) {
  const std::vector<float> bf16 = Random(256, true, 7), f32 = Random(256, false, 8);
  EXPECT_TRUE(ProductsExact(bf16.data(), 256, bf16.data(), 256));
  EXPECT_FALSE(ProductsExact(bf16.data(), 256, f32.data(), 256));
  for (float special : {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                        std::numeric_limits<float>::denorm_min(), 0x1p-70f, 0x1p70f}) {
    std::vector<float> v = bf16;
    v[100] = special;
    EXPECT_FALSE(ProductsExact(v.data(), 256, bf16.data(), 256)) << special;
    if (HostHasAvx2Fma()) {
      EXPECT_FALSE(gemm_internal::ProductsExactAvx2(v.data(), 256, bf16.data(), 256)) << special;
    }
  }
  if (HostHasAvx2Fma()) {
    EXPECT_TRUE(gemm_internal::ProductsExactAvx2(bf16.data(), 256, bf16.data(), 256));
    EXPECT_FALSE(gemm_internal::ProductsExactAvx2(bf16.data(), 256, f32.data(), 256));
  }
  std::vector<float> zeros(16, 0.0f);
  zeros[3] = -0.0f;
  EXPECT_TRUE(ProductsExact(zeros.data(), 16, bf16.data(), 256));
}

// Infinities, NaNs and out-of-range magnitudes: nothing fuses.
void SpecialValues(int64_t n) {
  const int64_t kk = 9, m = 7;
  std::vector<float> a = Random(kk * m, true, 11), b = Random(kk * n, true, 12);
  a[3] = std::numeric_limits<float>::infinity();
  a[10] = 0x1p100f;
  b[5] = std::numeric_limits<float>::quiet_NaN();
  b[20] = 0x1p-120f;
  b[33] = 0x1p100f;
  CheckAllPaths(a, b, kk, m, n);
}

// The bf16 qualification agrees with the fp32 one on every bf16 value.
TEST(GemmTest, Bf16QualificationMatchesTheWidenedValues) {
  using Kernel = BlockedGemm<SeparateOps<V4, 4>>;
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    ASSERT_EQ(Kernel::UnqualifiedBf16(static_cast<uint16_t>(h)) != 0, Kernel::Unqualified(h << 16) != 0) << h;
  }
}

// bf16 rows: a column block of B whose values do not qualify runs unfused,
// the others fused (RunBf16QualifiedA); every output is still the
// partition-order loop's.
TEST(GemmTest, Bf16ColumnBlocksFuseOnlyWhereTheirValuesQualify) {
  if (!HostHasAvx2Fma()) GTEST_SKIP() << "host without AVX2: no fused path";
  const int64_t kk = 16, m = 8, n = 64;  // 4 column blocks of 16
  std::vector<float> a = Random(kk * m, true, 21), b = Random(kk * n, true, 22);
  // Output (0, 40) sums 2^-124, 2^-147 and 1.5 * 2^-149 (A's values qualify,
  // B's are below 2^-63): the last product rounds up to 2^-148, and adding
  // that is a tie that rounds to even (up); fused, the unrounded product
  // stays below the tie. So column block 2 must run unfused.
  const float column[3][2] = {{0x1p-62f, 0x1p-62f}, {0x1p-60f, 0x1p-87f}, {0x1.8p-60f, 0x1p-89f}};  // (a, b)
  for (int64_t k = 0; k < kk; ++k) {
    a[k * m] = k < 3 ? column[k][0] : 0.0f;
    b[k * n + 40] = k < 3 ? column[k][1] : 0.0f;
  }
  const std::vector<float> want = Reference(a, b, kk, m, n);
  std::vector<float> fused(want.size());
  gemm_internal::MatmulAvx2(gemm_internal::GemmArgs{a.data(), b.data(), fused.data(), n, kk, m, n, false},
                            gemm_internal::Fusion::kAlways);
  ASSERT_NE(Bits(fused[40]), Bits(want[40])) << "the data must tell fused from unfused sums";
  CheckAllPaths(a, b, kk, m, n);
}

// A column block's verdict agrees with the per-value one for every bf16
// value in every lane (the others 1.0).
TEST(GemmTest, Bf16BlockQualificationMatchesThePerValueOne) {
  using Kernel = BlockedGemm<SeparateOps<V4, 4>>;
  constexpr int64_t kCols = Kernel::kCols, kk = 3;
  std::vector<uint16_t> rows(kk * kCols, 0x3f80);  // 1.0
  std::vector<float> widened(kk * kCols);
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const int64_t at = (h % kk) * kCols + h % kCols;  // every row and lane in turn
    rows[at] = static_cast<uint16_t>(h);
    const bool qualifies = Kernel::WidenBlockQualifying(
        Bf16Rows{reinterpret_cast<const uint8_t*>(rows.data()), 2 * kCols}, kk, 0, widened.data());
    ASSERT_EQ(qualifies, Kernel::UnqualifiedBf16(static_cast<uint16_t>(h)) == 0) << h;
    ASSERT_EQ(Bits(widened[at]), h << 16) << h;
    rows[at] = 0x3f80;
  }
}

// The dot-product kernel takes exactly the bf16 values in its range: each
// of the 65536 in every lane and partition position of a small problem
// (odd K: the last partition has a zero partner).
TEST(GemmTest, Bf16DotTakesExactlyTheValuesInItsRange) {
  if (!HostHasAvx512Bf16()) GTEST_SKIP() << "host without AVX-512 BF16";
  const int64_t kk = 3, m = 2, n = 16;
  std::vector<uint16_t> a(kk * m, 0x3f80), b(kk * n, 0x3f80);  // 1.0
  std::vector<float> out(m * n);
  const gemm_internal::GemmArgs g{nullptr, nullptr, out.data(), n, kk, m, n, false};
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    float x;
    const uint32_t bits = h << 16;
    std::memcpy(&x, &bits, 4);
    std::vector<uint16_t>& operand = h % 2 ? a : b;
    const size_t at = h % operand.size();
    operand[at] = static_cast<uint16_t>(h);
    const bool taken = gemm_internal::MatmulBf16Dot(Bf16Rows{reinterpret_cast<const uint8_t*>(a.data()), 2 * m},
                                                    Bf16Rows{reinterpret_cast<const uint8_t*>(b.data()), 2 * n}, g);
    ASSERT_EQ(taken, InDotRange(x)) << std::hex << h;
    operand[at] = 0x3f80;
  }
}

// Values the fused AVX2 path takes but the dot-product kernel must not:
// (1 + 2^-7) * 2^-62 * 2^-62 - 2^-62 * 2^-62 = 2^-131, a subnormal partial
// sum that VDPBF16PS would flush to zero. Every path gives 2^-131.
TEST(GemmTest, SubnormalPartialSumsStayOffTheDotProductKernel) {
  const int64_t kk = 2, m = 6, n = 32;
  std::vector<float> a(kk * m, 0.0f), b(kk * n, 0.0f);
  a[0] = 0x1.02p-62f;
  a[m] = -0x1p-62f;
  b[0] = 0x1p-62f;
  b[n] = 0x1p-62f;
  ASSERT_TRUE(ProductsExact(a.data(), kk * m, b.data(), kk * n));
  ASSERT_EQ(Reference(a, b, kk, m, n)[0], 0x1p-131f);
  CheckAllPaths(a, b, kk, m, n);
}

// A product small enough for the plain loop on the bf16 rows (kSmallProduct),
// with an infinity, a NaN, subnormal products and a subnormal partial sum.
TEST(GemmTest, SmallBf16ProductsMatchWithSpecialValues) {
  const int64_t kk = 3, m = 2, n = 4;
  ASSERT_LE(kk * m * n, gemm_internal::kSmallProduct);
  std::vector<float> a = Random(kk * m, true, 31), b = Random(kk * n, true, 32);
  a[0] = std::numeric_limits<float>::infinity();
  b[1] = std::numeric_limits<float>::quiet_NaN();
  a[1] = 0x1.02p-62f;  // column 1 with b's 2^-62 column: 2^-131 after cancelling
  a[m + 1] = -0x1p-62f;
  b[2] = 0x1p-62f;
  b[n + 2] = 0x1p-62f;
  a[2 * m + 1] = 0x1p-100f;
  CheckAllPaths(a, b, kk, m, n);
}

TEST(GemmTest, SpecialValuesMatchOnEveryPath) {
  for (int64_t n : {19, 32}) {  // 32: also the bf16 rows path, unfused
    SpecialValues(n);
  }
}

}  // namespace
}  // namespace isa
}  // namespace nsim
