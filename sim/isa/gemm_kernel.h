#pragma once
// The blocked GEMM of gemm.h, written once over a vector policy `Ops` and
// compiled in two translation units (portable, and AVX2 with -ffp-contract=off).
// Each TU passes a policy type from its own anonymous namespace, so the two
// instantiations never merge at link time.
//
// Ops provides: using V (a GCC vector of W floats); static constexpr int W;
// static V Splat(float); static V MulAdd(V a, V b, V c) returning c + a * b
// (fused only where gemm.h allows).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sim/base/dtype.h"
#include "sim/base/local_buffer.h"
#include "sim/isa/gemm.h"

namespace nsim {
namespace isa {
namespace {

// One row of a packed column block of B: bf16 bits in 16-bit lanes, and
// widened to fp32 bits in 32-bit lanes.
typedef uint16_t U16x8 __attribute__((vector_size(16)));
typedef uint16_t U16x16 __attribute__((vector_size(32)));
typedef uint32_t U32x8 __attribute__((vector_size(32)));

// The vector policy with a separate multiply and add, for a GCC vector type
// Vec of kWidth floats. Internal linkage: each including file has its own.
template <class Vec, int kWidth>
struct SeparateOps {
  using V = Vec;
  static constexpr int W = kWidth;
  static V Splat(float x) {  // a literal, so the compiler emits one broadcast
    static_assert(kWidth == 4 || kWidth == 8, "SSE or AVX width");
    if constexpr (kWidth == 8) {
      return V{x, x, x, x, x, x, x, x};
    } else {
      return V{x, x, x, x};
    }
  }
  static V MulAdd(V a, V b, V c) { return c + a * b; }
};

}  // namespace

template <class Ops>
struct BlockedGemm {
  using V = typename Ops::V;
  using Args = gemm_internal::GemmArgs;
  static constexpr int W = Ops::W;
  static constexpr int kRows = gemm_internal::kPanelRows;  // MR x 2 vectors = 12 accumulators: fits 16 registers

  static void Store(const Args& g, float* dst, V sum) {
    if (g.accumulate) {
      V old;
      std::memcpy(&old, dst, sizeof(V));
      sum = old + sum;
    }
    std::memcpy(dst, &sum, sizeof(V));
  }

  // Outputs [m0, m0 + MR) x [n0, n0 + NV * W): the partition-order sums.
  // Row k of the tile's A values starts at a + k * a_step (MR consecutive
  // m), of its B values at b + k * b_step (NV * W consecutive n): the
  // operands in place, or packed contiguously by Column.
  template <int MR, int NV>
  static void Tile(const Args& g, const float* a, int64_t a_step, const float* b, int64_t b_step, int64_t m0,
                   int64_t n0) {
    V c[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int j = 0; j < NV; ++j) c[r][j] = Ops::Splat(0.0f);
    for (int64_t k = 0; k < g.k_size; ++k) {
      V bv[NV];
      for (int j = 0; j < NV; ++j) std::memcpy(&bv[j], b + k * b_step + j * W, sizeof(V));
      const float* arow = a + k * a_step;
      for (int r = 0; r < MR; ++r) {
        const V av = Ops::Splat(arow[r]);
        for (int j = 0; j < NV; ++j) c[r][j] = Ops::MulAdd(av, bv[j], c[r][j]);
      }
    }
    for (int r = 0; r < MR; ++r)
      for (int j = 0; j < NV; ++j) Store(g, g.out + (m0 + r) * g.out_stride + n0 + j * W, c[r][j]);
  }

  template <int MR, int NV>
  static void Tile(const Args& g, int64_t m0, int64_t n0) {
    Tile<MR, NV>(g, g.a + m0, g.m_size, g.b + n0, g.n_size, m0, n0);
  }

  // A's panels, each K rows of kRows consecutive m (the last one K rows of
  // the m_size % kRows leftover m): a tile then reads one contiguous stream
  // instead of K lines m_size floats apart.
  struct Packed {
    LocalBuffer<float> a;    // the panel of rows [m0, ...) at m0 * K
    LocalBuffer<float> b;    // the current column block: K rows of 2 * W
    LocalBuffer<float> row;  // a row of A widened to fp32 (bf16 operands)
  };
  static Packed& Scratch() {
    thread_local Packed p;
    return p;
  }
  // row_a(k) returns A's row k as m_size fp32 values (valid until the next
  // call); each row is split into the panels, row by row, so that a bf16 row
  // is widened whole (vectorised) rather than a panel's few elements at a time.
  template <class RowA>
  static void PackA(const Args& g, Packed& p, RowA&& row_a) {
    const int64_t m_size = g.m_size, k_size = g.k_size;  // locals: the copies below cannot change them
    p.a.resize(static_cast<size_t>(m_size * k_size));
    float* const packed = p.a.data();  // panel m0 holds K rows of its rows at m0 * K
    int64_t whole_end = 0;             // the panels of kRows rows come first
    while (whole_end < m_size && gemm_internal::PanelRows(m_size, whole_end) == kRows) whole_end += kRows;
    for (int64_t k = 0; k < k_size; ++k) {
      const float* row = row_a(k);
      for (int64_t m0 = 0; m0 < whole_end; m0 += kRows) {
        std::memcpy(packed + m0 * k_size + k * kRows, row + m0, sizeof(float) * kRows);  // fixed size: inlined
      }
      for (int64_t m0 = whole_end, rows; m0 < m_size; m0 += rows) {
        rows = gemm_internal::PanelRows(m_size, m0);
        std::memcpy(packed + m0 * k_size + k * rows, row + m0, sizeof(float) * rows);
      }
    }
  }
  static constexpr int64_t kCols = 2 * W;  // a packed column block of B
  // copy_b(k, j, n, dst) as copy_a, for B's elements (k, [j, j + n)).
  template <class CopyB>
  static void PackedColumn(const Args& g, Packed& p, int64_t n0, CopyB&& copy_b) {
    p.b.resize(static_cast<size_t>(g.k_size * kCols));
    for (int64_t k = 0; k < g.k_size; ++k) copy_b(k, n0, kCols, p.b.data() + k * kCols);
    PackedTiles(g, p.a.data(), p.b.data(), n0);
  }
  // Every row's tiles of column block [n0, n0 + kCols): A's panels packed at
  // `panels` (PackA), the block's K rows of kCols at `block`.
  static void PackedTiles(const Args& g, const float* panels, const float* block, int64_t n0) {
    for (int64_t m0 = 0, rows; m0 < g.m_size; m0 += rows) {
      rows = gemm_internal::PanelRows(g.m_size, m0);  // the panel: K rows of `rows` m
      const float* panel = panels + m0 * g.k_size;
      if (rows == kRows) {
        Tile<kRows, 2>(g, panel, kRows, block, kCols, m0, n0);
      } else {
        Rest<2>(g, rows, panel, rows, block, kCols, m0, n0);
      }
    }
  }

  template <int NV>
  static void Column(const Args& g, int64_t n0) {
    int64_t m0 = 0;
    for (; m0 + kRows <= g.m_size; m0 += kRows) Tile<kRows, NV>(g, m0, n0);
    Rest<NV>(g, g.m_size - m0, g.a + m0, g.m_size, g.b + n0, g.n_size, m0, n0);
  }
  // A tile of rows [m0, m0 + rows) for rows < kRows, A and B as in Tile.
  template <int NV>
  static void Rest(const Args& g, int64_t rows, const float* a, int64_t a_step, const float* b, int64_t b_step,
                   int64_t m0, int64_t n0) {
    switch (rows) {
      case 5: return Tile<5, NV>(g, a, a_step, b, b_step, m0, n0);
      case 4: return Tile<4, NV>(g, a, a_step, b, b_step, m0, n0);
      case 3: return Tile<3, NV>(g, a, a_step, b, b_step, m0, n0);
      case 2: return Tile<2, NV>(g, a, a_step, b, b_step, m0, n0);
      case 1: return Tile<1, NV>(g, a, a_step, b, b_step, m0, n0);
      default: return;
    }
  }

  // Columns past the last whole vector (N < W, e.g. a matrix-vector product):
  // vectorised across M instead. a's row k holds consecutive m, so kMVecs
  // vectors of outputs [m0, m0 + kMVecs * W) of column j sum side by side,
  // each still in k order; rows past the last whole vector go one by one.
  static constexpr int kMVecs = 4;
  template <int NVEC>
  static void TailBlock(const Args& g, int64_t m0, int64_t j) {
    V c[NVEC];
    for (int v = 0; v < NVEC; ++v) c[v] = Ops::Splat(0.0f);
    for (int64_t k = 0; k < g.k_size; ++k) {
      const V bv = Ops::Splat(g.b[k * g.n_size + j]);
      for (int v = 0; v < NVEC; ++v) {
        V av;
        std::memcpy(&av, g.a + k * g.m_size + m0 + v * W, sizeof(V));
        c[v] = Ops::MulAdd(av, bv, c[v]);
      }
    }
    for (int v = 0; v < NVEC; ++v) {
      for (int l = 0; l < W; ++l) {
        float& dst = g.out[(m0 + v * W + l) * g.out_stride + j];
        dst = g.accumulate ? dst + c[v][l] : c[v][l];
      }
    }
  }

  static void TailColumns(const Args& g, int64_t n0) {
    for (int64_t j = n0; j < g.n_size; ++j) {
      int64_t m0 = 0;
      for (; m0 + kMVecs * W <= g.m_size; m0 += kMVecs * W) TailBlock<kMVecs>(g, m0, j);
      for (; m0 + W <= g.m_size; m0 += W) TailBlock<1>(g, m0, j);
      for (; m0 < g.m_size; ++m0) {
        float acc = 0.0f;
        for (int64_t k = 0; k < g.k_size; ++k) acc = acc + g.a[k * g.m_size + m0] * g.b[k * g.n_size + j];
        float& dst = g.out[m0 * g.out_stride + j];
        dst = g.accumulate ? dst + acc : acc;
      }
    }
  }

  // gemm.h's ProductsExact for the elements of x: at most 12 significant bits
  // (the low 12 of the 23 stored mantissa bits are zero) and, when nonzero, a
  // magnitude in [2^-63, 2^63). Two such numbers multiply to <= 24
  // significant bits with a magnitude in [2^-126, 2^126): an exact normal
  // fp32 number. Subnormals, infinities and NaNs fail the range check.
  // Unqualified: nonzero when the fp32 value with these bits does not qualify.
  static uint32_t Unqualified(uint32_t bits) {
    const uint32_t mag = bits & 0x7fffffffu;
    // Exponent field in [127 - 63, 127 + 63) as one unsigned compare
    // (branch-free, so the loops vectorise).
    const uint32_t from_min = mag - (uint32_t{127 - 63} << 23);
    const uint32_t out_of_range = static_cast<uint32_t>(from_min >= (uint32_t{126} << 23)) & (mag != 0);
    return (mag & 0xfffu) | out_of_range;
  }
  static bool Qualify(const float* x, int64_t n) {
    uint32_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &x[i], 4);
      bad |= Unqualified(bits);
    }
    return bad == 0;
  }

  // ---- bf16 operands packed from their rows (gemm.h MatmulBf16PartitionOrder) ----

  // Shapes whose every tile runs packed (Run's packed path with no columns
  // left over): the only ones RunBf16 takes.
  static bool Bf16Packable(const Args& g) {
    return g.m_size >= kRows && g.n_size >= 4 * W && g.n_size % kCols == 0 && g.k_size >= 8;
  }
  // Widens n bf16 values at src into dst (exact: the bits move up 16).
  static void Widen(const uint8_t* src, int64_t n, float* dst) {
    for (int64_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, src + 2 * i, 2);
      dst[i] = BF16ToFloat(h);
    }
  }
  // Unqualified(h << 16) != 0 for a bf16 value's bits h, in 16-bit lanes
  // (twice as many per vector): the widened bits' low 16 are zero, so the
  // significand always qualifies and Unqualified's exponent compare, shifted
  // down 16 bits, is the same compare.
  static uint16_t UnqualifiedBf16(uint16_t h) {
    const uint16_t mag = h & 0x7fffu;
    const uint16_t from_min = static_cast<uint16_t>(mag - ((127 - 63) << 7));
    return static_cast<uint16_t>(from_min >= (126 << 7)) & static_cast<uint16_t>(mag != 0);
  }
  // Widens the K rows of B's column block [n0, n0 + kCols) into dst (K rows
  // of kCols) and returns whether every value qualifies: UnqualifiedBf16 on
  // a whole row of the block at once, in 16-bit lanes, the flags of all rows
  // ORed in one vector and reduced once at the end.
  static bool WidenBlockQualifying(Bf16Rows b, int64_t k_size, int64_t n0, float* dst) {
    using Row = std::conditional_t<kCols == 16, U16x16, U16x8>;  // one row of the block
    static_assert(sizeof(Row) == 2 * kCols, "a block row is 8 or 16 values");
    Row bad = {};
    for (int64_t k = 0; k < k_size; ++k) {
      const uint8_t* src = b.At(k, n0);
      Row h;
      std::memcpy(&h, src, sizeof(Row));
      const Row mag = h & uint16_t{0x7fff};
      const Row from_min = mag - uint16_t{(127 - 63) << 7};
      bad |= (Row)(from_min >= uint16_t{126 << 7}) & (Row)(mag != uint16_t{0});
      for (int i = 0; i < kCols; i += 8) {  // 8 values per 256-bit vector: BF16ToFloat's bits, lane by lane
        U16x8 part;
        std::memcpy(&part, src + 2 * i, sizeof(part));
        const U32x8 bits = __builtin_convertvector(part, U32x8) << 16;
        std::memcpy(dst + k * kCols + i, &bits, sizeof(bits));
      }
    }
    uint16_t any = 0;
    for (int i = 0; i < kCols; ++i) any |= bad[i];
    return any == 0;
  }
  // Qualify on the widened values of K rows of n elements.
  static bool QualifyBf16(Bf16Rows x, int64_t k_size, int64_t n) {
    uint16_t bad = 0;
    for (int64_t k = 0; k < k_size; ++k) {
      const uint8_t* row = x.At(k, 0);
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, row + 2 * i, 2);
        bad |= UnqualifiedBf16(h);
      }
    }
    return bad == 0;
  }
  static void PackBf16A(Bf16Rows a, const Args& g, Packed& p) {
    p.row.resize(static_cast<size_t>(g.m_size));
    PackA(g, p, [&](int64_t k) {
      Widen(a.At(k, 0), g.m_size, p.row.data());
      return static_cast<const float*>(p.row.data());
    });
  }
  static void RunBf16(Bf16Rows a, Bf16Rows b, const Args& g) {
    Packed& p = Scratch();
    PackBf16A(a, g, p);
    for (int64_t n0 = 0; n0 < g.n_size; n0 += kCols)
      PackedColumn(g, p, n0, [&](int64_t k, int64_t j, int64_t n, float* dst) { Widen(b.At(k, j), n, dst); });
  }
  // RunBf16 once the caller has qualified A (gemm.h ProductsExact): each
  // column block of B is qualified as it is widened and runs this
  // policy's tiles (fused multiply-adds) when its values qualify too, else
  // Separate's. A block's outputs involve only its own B values and both
  // policies give the same floats, so choosing per block changes no bit;
  // B's rows are read once, not once to qualify and again to pack.
  template <class Separate>
  static void RunBf16QualifiedA(Bf16Rows a, Bf16Rows b, const Args& g) {
    Packed& p = Scratch();
    PackBf16A(a, g, p);
    p.b.resize(static_cast<size_t>(g.k_size * kCols));
    for (int64_t n0 = 0; n0 < g.n_size; n0 += kCols) {
      if (WidenBlockQualifying(b, g.k_size, n0, p.b.data())) {
        PackedTiles(g, p.a.data(), p.b.data(), n0);
      } else {
        Separate::PackedTiles(g, p.a.data(), p.b.data(), n0);
      }
    }
  }

  static void Run(const Args& g) {
    int64_t n0 = 0;
    if (g.m_size >= kRows && g.n_size >= 4 * W && g.k_size >= 8) {  // packing pays for itself
      Packed& p = Scratch();
      PackA(g, p, [&](int64_t k) { return g.a + k * g.m_size; });
      for (; n0 + kCols <= g.n_size; n0 += kCols) {
        PackedColumn(g, p, n0, [&](int64_t k, int64_t j, int64_t n, float* dst) {
          std::memcpy(dst, g.b + k * g.n_size + j, sizeof(float) * n);
        });
      }
    }
    for (; n0 + 2 * W <= g.n_size; n0 += 2 * W) Column<2>(g, n0);
    if (n0 + W <= g.n_size) {
      Column<1>(g, n0);
      n0 += W;
    }
    if (n0 < g.n_size) TailColumns(g, n0);
  }
};

}  // namespace isa
}  // namespace nsim
