#include "sim/isa/gemm.h"

#include <cstring>

#include "sim/base/dtype.h"
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

namespace {

// The partition-order loop itself, on bf16 rows read in place: for products
// so small that widening the operands and setting up a blocked kernel cost
// more than the arithmetic (a [1, 1] tile's matmul: ~940 -> ~300
// instructions). Separate multiply and add (this file has no FMA).
void SmallBf16(Bf16Rows a, Bf16Rows b, float* out, int64_t out_stride, int64_t k_size, int64_t m_size,
               int64_t n_size, bool accumulate) {
  auto at = [](Bf16Rows x, int64_t k, int64_t i) {
    uint16_t h;
    std::memcpy(&h, x.At(k, i), 2);
    return BF16ToFloat(h);
  };
  for (int64_t m = 0; m < m_size; ++m) {
    for (int64_t n = 0; n < n_size; ++n) {
      float acc = 0.0f;
      for (int64_t k = 0; k < k_size; ++k) acc = acc + at(a, k, m) * at(b, k, n);
      float& dst = out[m * out_stride + n];
      dst = accumulate ? dst + acc : acc;
    }
  }
}

}  // namespace

bool MatmulBf16PartitionOrder(Bf16Rows a, Bf16Rows b, float* out, int64_t out_stride, int64_t k_size,
                              int64_t m_size, int64_t n_size, bool accumulate) {
  if (k_size * m_size * n_size <= gemm_internal::kSmallProduct) {
    SmallBf16(a, b, out, out_stride, k_size, m_size, n_size, accumulate);
    return true;
  }
  const gemm_internal::GemmArgs g{nullptr, nullptr, out, out_stride, k_size, m_size, n_size, accumulate};
  if (HostHasAvx512Bf16() && gemm_internal::MatmulBf16Dot(a, b, g)) return true;
  // The portable build keeps the general path: hosts without AVX2 are rare.
  return HostHasAvx2Fma() && gemm_internal::MatmulBf16Avx2(a, b, g);
}

}  // namespace isa
}  // namespace nsim
