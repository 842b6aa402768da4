// The AVX2 build of gemm_kernel.h. Compiled with -mavx2 -mfma
// -ffp-contract=off (sim/isa/BUILD): the compiler never fuses a multiply and
// an add by itself; fused multiply-adds appear only where MulAdd asks for
// them, i.e. when gemm.h's ProductsExact holds. Called only on hosts with
// AVX2 and FMA (gemm.cc checks at run time).
#include <immintrin.h>

#include "sim/isa/gemm_kernel.h"

namespace nsim {
namespace isa {
namespace {

typedef float V8 __attribute__((vector_size(32)));

using Separate = SeparateOps<V8, 8>;

struct Fused : Separate {
  static V MulAdd(V a, V b, V c) {
    return (V)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);  // vector casts: same bits
  }
};

}  // namespace

namespace gemm_internal {
bool ProductsExactAvx2(const float* a, int64_t na, const float* b, int64_t nb) {
  return BlockedGemm<Fused>::Qualify(a, na) && BlockedGemm<Fused>::Qualify(b, nb);
}

void MatmulAvx2(const GemmArgs& g, Fusion fusion) {
  const bool fused = fusion == Fusion::kAlways ||
                     (fusion == Fusion::kWhereExact &&
                      ProductsExactAvx2(g.a, g.k_size * g.m_size, g.b, g.k_size * g.n_size));
  if (fused) {
    BlockedGemm<Fused>::Run(g);
  } else {
    BlockedGemm<Separate>::Run(g);
  }
}
bool MatmulBf16Avx2(Bf16Rows a, Bf16Rows b, const GemmArgs& out) {
  if (!BlockedGemm<Fused>::Bf16Packable(out)) return false;
  if (BlockedGemm<Fused>::QualifyBf16(a, out.k_size, out.m_size)) {
    BlockedGemm<Fused>::RunBf16QualifiedA<BlockedGemm<Separate>>(a, b, out);  // B qualified per column block
  } else {
    BlockedGemm<Separate>::RunBf16(a, b, out);
  }
  return true;
}
}  // namespace gemm_internal

}  // namespace isa
}  // namespace nsim
