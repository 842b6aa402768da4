#pragma once
// The TensorE product in fp32, in the PE array's summation order: every
// output sums its K products in partition order k = 0, 1, ..., K-1, starting
// from +0 and rounding to fp32 after every addition (S1: the array
// accumulates down its rows in FP32). The order is fixed and documented here
// rather than left to a BLAS, whose blocking decides how sums associate
// (issue 12: Eigen's small-product paths summed in packet-width order).
//
// Vectorised across N (independent outputs), so the order per output is the
// same on every build. With AVX2+FMA on the host (checked at run time) it uses
// fused multiply-adds when every product is exact in fp32 (both operands have
// at most 12 significant bits and products stay in the normal range: fp16
// data always, bf16 data whose exponents lie in [2^-63, 2^63); checked on the
// data) — then fma(a, b, c) equals
// round(a * b) + c bit for bit; otherwise a separate multiply and add.
#include <cstdint>

namespace nsim {
namespace isa {

// out[m * out_stride + n] = sum_k a[k * m_size + m] * b[k * n_size + n]
// a: [K, M] (stationary), b: [K, N] (moving), both row-major; out: M rows of
// N, out_stride floats apart. accumulate: out = out + the sum (PSUM
// accumulation: the finished sum is added, one more rounding).
void MatmulPartitionOrder(const float* a, const float* b, float* out, int64_t out_stride, int64_t k_size,
                          int64_t m_size, int64_t n_size, bool accumulate);

// bf16 rows read in place: row k's element i is the bf16 at
// rows + k * pitch + 2 * i (bytes; any alignment).
struct Bf16Rows {
  const uint8_t* rows;
  int64_t pitch;
  // Element i of row k. Always inlined, like PanelRows: the AVX2 and AVX-512
  // files must not emit a copy the linker could share (isa_symbols_test).
  [[gnu::always_inline]] const uint8_t* At(int64_t k, int64_t i) const { return rows + k * pitch + 2 * i; }
};

// MatmulPartitionOrder of bf16 operands (a: K rows of M, b: K rows of N),
// packed straight from their rows: the same floats as on their fp32 values
// (bf16 widens exactly), without an fp32 copy of either operand. Returns
// false, writing nothing, when the host or the shape needs the general path
// (then widen the operands and call MatmulPartitionOrder). Tiny products
// (kSmallProduct) run the plain loop on the rows. With AVX-512 BF16
// on the host and operands in range it runs bf16 dot products
// (gemm_bf16_dot.cc), else the AVX2 kernel above: the same floats.
bool MatmulBf16PartitionOrder(Bf16Rows a, Bf16Rows b, float* out, int64_t out_stride, int64_t k_size,
                              int64_t m_size, int64_t n_size, bool accumulate);

// True when every product x * y of an element x of `a` and y of `b` is exact
// in fp32 (see above). Exposed for the test.
bool ProductsExact(const float* a, int64_t na, const float* b, int64_t nb);

namespace gemm_internal {
// MatmulBf16PartitionOrder computes products of at most this many
// multiply-adds with the plain loop on the bf16 rows (no widening, no
// packing): it always takes them.
constexpr int64_t kSmallProduct = 256;
// Rows of A per panel (a tile of 6 rows x 2 vectors keeps 12 sums in flight,
// enough to hide the multiply-add latency on both kernels' vector units).
constexpr int kPanelRows = 6;
// The rows of the panel of A starting at m0: kPanelRows, except that the
// last 7 to 9 rows go as 4 and 3 to 5: a tile of 1 or 2 rows keeps 2 or 4
// sums in flight, too few to hide the multiply-add latency (M = 128: 20
// panels of 6 and 2 of 4 instead of 21 of 6 and a slow one of 2). Each
// output's sum is the same whatever its panel.
[[gnu::always_inline]] inline int64_t PanelRows(int64_t m_size, int64_t m0) {
  const int64_t left = m_size - m0;
  return (left > kPanelRows && left < 2 * kPanelRows - 2) ? 4 : (left < kPanelRows ? left : kPanelRows);
}

// The portable kernel and the AVX2 kernel (the latter only when the host has
// AVX2 and FMA, sim/base/host_cpu.h). Both give the same floats.
struct GemmArgs {
  const float* a;
  const float* b;
  float* out;
  int64_t out_stride, k_size, m_size, n_size;
  bool accumulate;
};
enum class Fusion {
  kWhereExact,  // fused multiply-adds iff ProductsExact (what MatmulPartitionOrder runs)
  kNever,
  kAlways,      // tests only: correct only when ProductsExact holds
};
void MatmulPortable(const GemmArgs& g);
void MatmulAvx2(const GemmArgs& g, Fusion fusion);
bool ProductsExactAvx2(const float* a, int64_t na, const float* b, int64_t nb);
bool MatmulBf16Avx2(Bf16Rows a, Bf16Rows b, const GemmArgs& out);  // out's a and b unused
// The AVX-512 BF16 kernel (gemm_bf16_dot.cc; only when the host has
// AVX-512 BF16): false, writing nothing, unless N is a multiple of 16 and
// every nonzero value of both operands lies in [2^-56, 2^56).
bool MatmulBf16Dot(Bf16Rows a, Bf16Rows b, const GemmArgs& out);  // out's a and b unused
}  // namespace gemm_internal

}  // namespace isa
}  // namespace nsim
