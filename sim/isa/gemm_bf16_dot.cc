// The TensorE product of bf16 operands with VDPBF16PS (AVX-512 BF16: AMD
// Zen 4, Intel Cooper Lake / Sapphire Rapids and later), which adds two bf16
// products to each fp32 lane per instruction: twice the products per cycle
// of fp32 fused multiply-adds (measured on Zen 4: 114 G against 57 G products
// per second), with the operands read as bf16, never widened.
//
// Why it gives gemm.h's floats bit for bit. Per lane, VDPBF16PS computes
//   c = round(c + x.bf16[2i+1] * y.bf16[2i+1]);  c = round(c + x.bf16[2i] * y.bf16[2i])
// (Intel SDM, VDPBF16PS: the odd element first, each sum rounded to fp32
// nearest-even, inputs and outputs flushed to zero when subnormal). Packing
// partition k into the odd (high) half of a pair and k + 1 into the even half
// makes that partition order, and a product of two bf16 values (8 significant
// bits each) is exact in fp32, so each step is the reference's
// round(c + a * b). The flushes change nothing when nothing is ever
// subnormal, which Qualifies checks on the data: every nonzero operand in
// [2^-56, 2^56). Then every product is a whole multiple of 2^-126 (each
// operand is a multiple of 2^(e - 7) for its exponent e >= -56), so every
// partial sum is one too (rounding to fp32 keeps that: where the fp32 spacing
// is coarser than 2^-126 it is a multiple of it), hence 0 or normal; and
// every |sum| <= K * 2^112 stays finite (K < 2^15). A zero partner for an
// odd K's last partition adds +-0, which leaves c alone: c is never -0, as
// it starts at +0 and x + -x rounds to +0.
//
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512bf16 (sim/isa/BUILD);
// called only when host_cpu.h's HostHasAvx512Bf16 holds.
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports its own AVX-512 intrinsics' deliberately undefined
// vectors (_mm512_undefined_*) as maybe uninitialised.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "sim/base/local_buffer.h"
#include "sim/isa/gemm.h"

namespace nsim {
namespace isa {
namespace gemm_internal {
namespace {

constexpr int kLanes = 16;             // fp32 lanes per 512-bit vector
constexpr int64_t kCols = 2 * kLanes;  // a packed column block of B

// Nonzero bf16 magnitudes in [2^-56, 2^56): biased exponents [71, 183).
constexpr uint16_t kMinMag = (127 - 56) << 7, kSpan = 112 << 7;

// Nonzero in a 16-bit lane when that bf16 value does not qualify (see the
// top of the file): mag - min (wrapping) >= span, and mag != 0. Vector
// operations only, so a caller ORs the results of a whole operand together.
__m512i Unqualified(__m512i bf16) {
  const __m512i mag = _mm512_and_si512(bf16, _mm512_set1_epi16(0x7fff));
  const __m512i from_min = _mm512_sub_epi16(mag, _mm512_set1_epi16(kMinMag));
  return _mm512_min_epu16(_mm512_subs_epu16(from_min, _mm512_set1_epi16(kSpan - 1)), mag);
}

// Whether K rows of n bf16 values qualify.
bool Qualifies(Bf16Rows x, int64_t k_size, int64_t n) {
  __m512i bad = _mm512_setzero_si512();
  const int64_t whole = n / 32 * 32;
  const __mmask32 tail = static_cast<__mmask32>((uint64_t{1} << (n - whole)) - 1);
  for (int64_t k = 0; k < k_size; ++k) {
    const uint8_t* row = x.At(k, 0);
    for (int64_t i = 0; i < whole; i += 32) bad = _mm512_or_si512(bad, Unqualified(_mm512_loadu_si512(row + 2 * i)));
    if (tail != 0) bad = _mm512_or_si512(bad, Unqualified(_mm512_maskz_loadu_epi16(tail, row + 2 * whole)));
  }
  return _mm512_test_epi16_mask(bad, bad) == 0;
}

// 16 pairs (row k's value in the high half, row k + 1's in the low half) of
// the 16 values at column i; `next` is null for an odd K's last partition.
__m512i Pairs(const uint8_t* row, const uint8_t* next) {
  const __m512i hi = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)row)), 16);
  if (next == nullptr) return hi;
  return _mm512_or_si512(hi, _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)next)));
}

uint32_t Pair(const uint8_t* row, const uint8_t* next) {
  uint16_t h, l = 0;
  std::memcpy(&h, row, 2);
  if (next != nullptr) std::memcpy(&l, next, 2);
  return uint32_t{h} << 16 | l;
}

const uint8_t* NextRow(Bf16Rows x, int64_t k, int64_t k_size, int64_t i) {
  return k + 1 < k_size ? x.At(k + 1, i) : nullptr;
}

struct Scratch {
  LocalBuffer<uint32_t> a;      // K/2 rows of M pairs of A
  LocalBuffer<uint32_t> block;  // K/2 rows of kCols pairs of B
};

// A's pairs: row p (partitions 2p, 2p + 1) at p * M. A tile reads its MR
// rows' pairs of each p from there; the next tiles read the rest of the
// same cache lines, so no panel copy is needed.
void PackA(Bf16Rows a, int64_t k_size, int64_t m_size, uint32_t* out) {
  const int64_t pairs = (k_size + 1) / 2;
  for (int64_t p = 0; p < pairs; ++p) {
    const int64_t k = 2 * p;
    uint32_t* row = out + p * m_size;
    int64_t m = 0;
    for (; m + kLanes <= m_size; m += kLanes) _mm512_storeu_si512(row + m, Pairs(a.At(k, m), NextRow(a, k, k_size, m)));
    for (; m < m_size; ++m) row[m] = Pair(a.At(k, m), NextRow(a, k, k_size, m));
  }
}

// B's pairs of columns [n0, n0 + NV * kLanes): row p at p * kCols.
template <int NV>
void PackBlock(Bf16Rows b, int64_t k_size, int64_t n0, uint32_t* out) {
  const int64_t pairs = (k_size + 1) / 2;
  for (int64_t p = 0; p < pairs; ++p) {
    const int64_t k = 2 * p;
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
      const int64_t n = n0 + j * kLanes;
      _mm512_storeu_si512(out + p * kCols + j * kLanes, Pairs(b.At(k, n), NextRow(b, k, k_size, n)));
    }
  }
}

// Outputs [m0, m0 + MR) x [n0, n0 + NV * kLanes) from A's pairs (rows
// m_size apart, from m0) and the block's. The small loops are unrolled so
// that the sums live in registers, never on the stack.
template <int MR, int NV>
void Tile(const GemmArgs& g, const uint32_t* a, const uint32_t* block, int64_t pairs, int64_t m0, int64_t n0) {
  __m512 c[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) c[r][j] = _mm512_setzero_ps();
  const uint32_t* arow = a + m0;
  for (int64_t p = 0; p < pairs; ++p, arow += g.m_size) {
    __m512bh bv[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) bv[j] = (__m512bh)_mm512_loadu_si512(block + p * kCols + j * kLanes);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512bh av = (__m512bh)_mm512_set1_epi32(static_cast<int>(arow[r]));
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) c[r][j] = _mm512_dpbf16_ps(c[r][j], av, bv[j]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
      float* dst = g.out + (m0 + r) * g.out_stride + n0 + j * kLanes;
      // PSUM accumulation adds the finished sum: one more rounding.
      _mm512_storeu_ps(dst, g.accumulate ? _mm512_add_ps(_mm512_loadu_ps(dst), c[r][j]) : c[r][j]);
    }
  }
}

template <int NV>
void Column(const GemmArgs& g, const uint32_t* a, const uint32_t* block, int64_t pairs, int64_t n0) {
  for (int64_t m0 = 0, rows; m0 < g.m_size; m0 += rows) {
    rows = PanelRows(g.m_size, m0);
    switch (rows) {
      case 6: Tile<6, NV>(g, a, block, pairs, m0, n0); break;
      case 5: Tile<5, NV>(g, a, block, pairs, m0, n0); break;
      case 4: Tile<4, NV>(g, a, block, pairs, m0, n0); break;
      case 3: Tile<3, NV>(g, a, block, pairs, m0, n0); break;
      case 2: Tile<2, NV>(g, a, block, pairs, m0, n0); break;
      default: Tile<1, NV>(g, a, block, pairs, m0, n0); break;
    }
  }
}

}  // namespace

bool MatmulBf16Dot(Bf16Rows a, Bf16Rows b, const GemmArgs& g) {
  if (g.n_size < kLanes || g.n_size % kLanes != 0 || g.m_size < 1 || g.k_size < 1 || g.k_size >= (1 << 15)) {
    return false;
  }
  // A pass of its own before packing: checking B while packing it whole
  // (its blocks then come from L2, not L1) measured 10 % slower on the
  // [128, 512] stream.
  if (!Qualifies(a, g.k_size, g.m_size) || !Qualifies(b, g.k_size, g.n_size)) return false;
  thread_local Scratch s;
  const int64_t pairs = (g.k_size + 1) / 2;
  s.a.resize(static_cast<size_t>(pairs * g.m_size));
  s.block.resize(static_cast<size_t>(pairs * kCols));
  uint32_t* const a_pairs = s.a.data();  // locals: the stores below could alias the vectors' own pointers
  uint32_t* const block = s.block.data();
  PackA(a, g.k_size, g.m_size, a_pairs);
  int64_t n0 = 0;
  for (; n0 + kCols <= g.n_size; n0 += kCols) {
    PackBlock<2>(b, g.k_size, n0, block);
    Column<2>(g, a_pairs, block, pairs, n0);
  }
  if (n0 < g.n_size) {  // one vector of columns left
    PackBlock<1>(b, g.k_size, n0, block);
    Column<1>(g, a_pairs, block, pairs, n0);
  }
  return true;
}

}  // namespace gemm_internal
}  // namespace isa
}  // namespace nsim
