#include "sim/isa/gemm.h"

#include <cstring>

#include "sim/base/host_cpu.h"
#include "sim/isa/gemm_kernel.h"

namespace nsim {
namespace isa {
namespace {

typedef float V4 __attribute__((vector_size(16)));

// The portable build: SSE2-width vectors (every x86-64 host), separate
// multiply and add.
using Portable = SeparateOps<V4, 4>;

}  // namespace

bool ProductsExact(const float* a, int64_t na, const float* b, int64_t nb) {
  return BlockedGemm<Portable>::Qualify(a, na) && BlockedGemm<Portable>::Qualify(b, nb);
}

namespace gemm_internal {
void MatmulPortable(const GemmArgs& g) { BlockedGemm<Portable>::Run(g); }

}  // namespace gemm_internal

void MatmulPartitionOrder(const float* a, const float* b, float* out, int64_t out_stride, int64_t k_size,
                          int64_t m_size, int64_t n_size, bool accumulate) {
  const gemm_internal::GemmArgs g{a, b, out, out_stride, k_size, m_size, n_size, accumulate};
  if (HostHasAvx2Fma()) {
    gemm_internal::MatmulAvx2(g, gemm_internal::Fusion::kWhereExact);
  } else {
    gemm_internal::MatmulPortable(g);
  }
}

bool MatmulBf16PartitionOrder(Bf16Rows a, Bf16Rows b, float* out, int64_t out_stride, int64_t k_size,
                              int64_t m_size, int64_t n_size, bool accumulate) {
  const gemm_internal::GemmArgs g{nullptr, nullptr, out, out_stride, k_size, m_size, n_size, accumulate};
  if (HostHasAvx512Bf16() && gemm_internal::MatmulBf16Dot(a, b, g)) return true;
  // The portable build keeps the general path: hosts without AVX2 are rare.
  return HostHasAvx2Fma() && gemm_internal::MatmulBf16Avx2(a, b, g);
}

}  // namespace isa
}  // namespace nsim
