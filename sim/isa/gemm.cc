#include "sim/isa/gemm.h"

#include <cstring>

#include "sim/isa/gemm_kernel.h"

namespace nsim {
namespace isa {
namespace {

typedef float V4 __attribute__((vector_size(16)));

// The portable build: SSE2-width vectors (every x86-64 host), separate
// multiply and add.
struct Portable {
  using V = V4;
  static constexpr int W = 4;
  static V Splat(float x) { return V{x, x, x, x}; }
  static V MulAdd(V a, V b, V c) { return c + a * b; }
};

// At most 12 significant bits (the low 12 of the 23 stored mantissa bits are
// zero; subnormals are excluded by the range check) and, when nonzero, a
// magnitude in [2^-63, 2^63): products then have <= 24 significant bits and a
// magnitude in [2^-126, 2^126), so they are exact normal fp32 numbers.
// Infinities and NaNs fail the range check.
bool ElementsQualify(const float* x, int64_t n) {
  uint32_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &x[i], 4);
    const uint32_t mag = bits & 0x7fffffffu;
    // Exponent field in [127 - 63, 127 + 63), as one unsigned compare
    // (branch-free, so the loop vectorises).
    const uint32_t from_min = mag - (uint32_t{127 - 63} << 23);
    const uint32_t out_of_range = static_cast<uint32_t>(from_min >= (uint32_t{126} << 23)) & (mag != 0);
    bad |= (mag & 0xfffu) | out_of_range;
  }
  return bad == 0;
}

}  // namespace

bool ProductsExact(const float* a, int64_t na, const float* b, int64_t nb) {
  return ElementsQualify(a, na) && ElementsQualify(b, nb);
}

namespace gemm_internal {
void MatmulPortable(const float* a, const float* b, float* out, int64_t k_size, int64_t m_size, int64_t n_size) {
  BlockedGemm<Portable>::Run(a, b, out, k_size, m_size, n_size);
}

bool HostHasAvx2Fma() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
#else
  return false;
#endif
}
}  // namespace gemm_internal

void MatmulPartitionOrder(const float* a, const float* b, float* out, int64_t k_size, int64_t m_size,
                          int64_t n_size) {
  if (gemm_internal::HostHasAvx2Fma()) {
    const bool fused = ProductsExact(a, k_size * m_size, b, k_size * n_size);
    gemm_internal::MatmulAvx2(a, b, out, k_size, m_size, n_size, fused);
  } else {
    gemm_internal::MatmulPortable(a, b, out, k_size, m_size, n_size);
  }
}

}  // namespace isa
}  // namespace nsim
