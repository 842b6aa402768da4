// The AVX2 build of gemm_kernel.h. Compiled with -mavx2 -mfma
// -ffp-contract=off (sim/isa/BUILD): the compiler never fuses a multiply and
// an add by itself; fused multiply-adds appear only where MulAdd asks for
// them, i.e. when gemm.h's ProductsExact holds. Called only on hosts with
// AVX2 and FMA (gemm.cc checks at run time).
#include <immintrin.h>

#include "sim/isa/gemm.h"
#include "sim/isa/gemm_kernel.h"

namespace nsim {
namespace isa {
namespace {

typedef float V8 __attribute__((vector_size(32)));

struct Separate {
  using V = V8;
  static constexpr int W = 8;
  static V Splat(float x) { return V{x, x, x, x, x, x, x, x}; }
  static V MulAdd(V a, V b, V c) { return c + a * b; }
};

struct Fused {
  using V = V8;
  static constexpr int W = 8;
  static V Splat(float x) { return V{x, x, x, x, x, x, x, x}; }
  static V MulAdd(V a, V b, V c) {
    return reinterpret_cast<V>(_mm256_fmadd_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b),
                                               reinterpret_cast<__m256>(c)));
  }
};

}  // namespace

namespace gemm_internal {
void MatmulAvx2(const float* a, const float* b, float* out, int64_t k_size, int64_t m_size, int64_t n_size,
                bool fused) {
  if (fused) {
    BlockedGemm<Fused>::Run(a, b, out, k_size, m_size, n_size);
  } else {
    BlockedGemm<Separate>::Run(a, b, out, k_size, m_size, n_size);
  }
}
}  // namespace gemm_internal

}  // namespace isa
}  // namespace nsim
