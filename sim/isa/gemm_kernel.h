#pragma once
// The blocked GEMM of gemm.h, written once over a vector policy `Ops` and
// compiled in two translation units (portable, and AVX2 with -ffp-contract=off).
// Each TU passes a policy type from its own anonymous namespace, so the two
// instantiations never merge at link time.
//
// Ops provides: using V (a GCC vector of W floats); static constexpr int W;
// static V Splat(float); static V MulAdd(V a, V b, V c) returning c + a * b
// (fused only where gemm.h allows).
#include <cstdint>
#include <cstring>

namespace nsim {
namespace isa {

template <class Ops>
struct BlockedGemm {
  using V = typename Ops::V;
  static constexpr int W = Ops::W;
  static constexpr int kRows = 6;  // MR x 2 vectors = 12 accumulators: fits 16 registers

  // out[m0..m0+MR, n0..n0+NV*W) = the partition-order sums.
  template <int MR, int NV>
  static void Tile(const float* a, const float* b, float* out, int64_t kk, int64_t m, int64_t n, int64_t m0,
                   int64_t n0) {
    V c[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int j = 0; j < NV; ++j) c[r][j] = Ops::Splat(0.0f);
    for (int64_t k = 0; k < kk; ++k) {
      V bv[NV];
      for (int j = 0; j < NV; ++j) std::memcpy(&bv[j], b + k * n + n0 + j * W, sizeof(V));
      const float* arow = a + k * m + m0;
      for (int r = 0; r < MR; ++r) {
        const V av = Ops::Splat(arow[r]);
        for (int j = 0; j < NV; ++j) c[r][j] = Ops::MulAdd(av, bv[j], c[r][j]);
      }
    }
    for (int r = 0; r < MR; ++r)
      for (int j = 0; j < NV; ++j) std::memcpy(out + (m0 + r) * n + n0 + j * W, &c[r][j], sizeof(V));
  }

  template <int NV>
  static void Column(const float* a, const float* b, float* out, int64_t kk, int64_t m, int64_t n, int64_t n0) {
    int64_t m0 = 0;
    for (; m0 + kRows <= m; m0 += kRows) Tile<kRows, NV>(a, b, out, kk, m, n, m0, n0);
    switch (m - m0) {
      case 5: return Tile<5, NV>(a, b, out, kk, m, n, m0, n0);
      case 4: return Tile<4, NV>(a, b, out, kk, m, n, m0, n0);
      case 3: return Tile<3, NV>(a, b, out, kk, m, n, m0, n0);
      case 2: return Tile<2, NV>(a, b, out, kk, m, n, m0, n0);
      case 1: return Tile<1, NV>(a, b, out, kk, m, n, m0, n0);
      default: return;
    }
  }

  // Columns past the last whole vector: one scalar sum per output, same order.
  static void ScalarColumns(const float* a, const float* b, float* out, int64_t kk, int64_t m, int64_t n,
                            int64_t n0) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = n0; j < n; ++j) {
        float acc = 0.0f;
        for (int64_t k = 0; k < kk; ++k) acc = acc + a[k * m + i] * b[k * n + j];
        out[i * n + j] = acc;
      }
    }
  }

  static void Run(const float* a, const float* b, float* out, int64_t kk, int64_t m, int64_t n) {
    int64_t n0 = 0;
    for (; n0 + 2 * W <= n; n0 += 2 * W) Column<2>(a, b, out, kk, m, n, n0);
    if (n0 + W <= n) {
      Column<1>(a, b, out, kk, m, n, n0);
      n0 += W;
    }
    if (n0 < n) ScalarColumns(a, b, out, kk, m, n, n0);
  }
};

}  // namespace isa
}  // namespace nsim
