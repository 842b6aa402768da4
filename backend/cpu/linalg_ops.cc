// CPU reference kernels for matrix products. Inputs of any layout are read
// into row-major buffers; products accumulate in fp32 for floating dtypes
// (as a TensorE PSUM does) and round once into the output dtype.
#include "backend/cpu/loops.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"

namespace nsim {
namespace at {
namespace {

// c[b] = a[b] (m x k) @ w[b] (k x n) for `batches` row-major matrices.
template <class C>
std::vector<C> BatchedGemm(const std::vector<C>& a, const std::vector<C>& w, int64_t batches,
                           int64_t m, int64_t k, int64_t n) {
  std::vector<C> c(batches * m * n, C(0));
  for (int64_t b = 0; b < batches; ++b) {
    const C* ab = a.data() + b * m * k;
    const C* wb = w.data() + b * k * n;
    C* cb = c.data() + b * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t p = 0; p < k; ++p) {
        const C x = ab[i * k + p];
        for (int64_t j = 0; j < n; ++j) cb[i * n + j] += x * wb[p * n + j];
      }
    }
  }
  return c;
}

Tensor Product(const TensorMeta& meta, const Tensor& a, const Tensor& w) {
  Tensor out = MakeOutput(meta);
  const int64_t nd = a.dim();
  const int64_t batches = nd == 3 ? a.size(0) : 1;
  const int64_t m = a.size(nd - 2), k = a.size(nd - 1), n = w.size(nd - 1);
  VisitComputeType(meta.dtype, [&](auto tag) {
    using C = typename decltype(tag)::type;
    WriteAll(out, BatchedGemm(ReadAll<C>(a), ReadAll<C>(w), batches, m, k, n));
  });
  return out;
}

Tensor mm(const Tensor& self, const Tensor& mat2) { return Product(MmMeta(self, mat2), self, mat2); }
Tensor bmm(const Tensor& self, const Tensor& mat2) { return Product(BmmMeta(self, mat2), self, mat2); }

}  // namespace

NSIM_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("mm", &mm);
  m.impl("bmm", &bmm);
}

}  // namespace at
}  // namespace nsim
