#include "sim/memory/dtype_runs.h"

#include <cstring>

#include "sim/base/host_cpu.h"
#include "sim/memory/dtype_run_loops.h"

namespace nsim {

namespace dtype_runs_internal {
void Bf16LoadPortable(const uint8_t* p, int64_t n, float* out) { Bf16LoadLoop(p, n, out); }
void Bf16StorePortable(const float* in, int64_t n, uint8_t* p) { Bf16StoreLoop(in, n, p); }
}  // namespace dtype_runs_internal

// Runs shorter than this (a small tile's rows) convert one element at a
// time: the build dispatch and the vectorised loops' setup would cost more
// than the run. Conversions are exact per element: the same bits either way.
constexpr int64_t kShortRun = 4;

__attribute__((optimize("no-tree-vectorize"))) void Bf16LoadShort(const uint8_t* p, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = Bf16ToFloat(p + 2 * i);
}
__attribute__((optimize("no-tree-vectorize"))) void Bf16StoreShort(const float* in, int64_t n, uint8_t* p) {
  for (int64_t i = 0; i < n; ++i) FloatToBf16(in[i], p + 2 * i);
}

void LoadRun(DType t, const uint8_t* p, int64_t n, float* out) {
  switch (t) {
    case DType::kF32: std::memcpy(out, p, n * 4); return;
    case DType::kBF16:
      if (n < kShortRun) return Bf16LoadShort(p, n, out);
      if (HostHasAvx2Fma()) return dtype_runs_internal::Bf16LoadAvx2(p, n, out);
      return dtype_runs_internal::Bf16LoadPortable(p, n, out);
    default:
      for (int64_t i = 0; i < n; ++i) out[i] = LoadElement(t, p + i * DTypeSize(t));
  }
}

void StoreRun(DType t, uint8_t* p, int64_t n, const float* in) {
  switch (t) {
    case DType::kF32: std::memcpy(p, in, n * 4); return;
    case DType::kBF16:
      if (n < kShortRun) return Bf16StoreShort(in, n, p);
      if (HostHasAvx2Fma()) return dtype_runs_internal::Bf16StoreAvx2(in, n, p);
      return dtype_runs_internal::Bf16StorePortable(in, n, p);
    default:
      for (int64_t i = 0; i < n; ++i) StoreElement(t, p + i * DTypeSize(t), in[i]);
  }
}

}  // namespace nsim
