#include "sim/memory/dtype_runs.h"

#include <cstring>

#include "sim/base/host_cpu.h"
#include "sim/memory/dtype_run_loops.h"

namespace nsim {

namespace dtype_runs_internal {
const Bf16Loops kPortableBf16Loops = kThisBuildBf16Loops;
}  // namespace dtype_runs_internal

namespace {
HostBuild<dtype_runs_internal::Bf16Loops> g_bf16(dtype_runs_internal::kPortableBf16Loops,
                                                 dtype_runs_internal::kAvx2Bf16Loops,
                                                 &dtype_runs_internal::kAvx512Bf16Loops);
[[maybe_unused]] const bool g_bf16_chosen = g_bf16.ChooseForHost();
}  // namespace

namespace {
void F32Load(const uint8_t* p, int64_t n, float* out) { std::memcpy(out, p, n * 4); }
void F32Store(const float* in, int64_t n, uint8_t* p) { std::memcpy(p, in, n * 4); }
template <DType kType>
void ElementLoad(const uint8_t* p, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = LoadElement(kType, p + i * DTypeSize(kType));
}
template <DType kType>
void ElementStore(const float* in, int64_t n, uint8_t* p) {
  for (int64_t i = 0; i < n; ++i) StoreElement(kType, p + i * DTypeSize(kType), in[i]);
}
}  // namespace

// f32 and bf16 have run loops of their own; every other type of dtype.h's
// table converts element by element.
LoadRunFn LoadRunFor(DType t) {
  if (t == DType::kF32) return &F32Load;
  if (t == DType::kBF16) return g_bf16->load;
  switch (t) {
#define NSIM_DTYPE_LOAD(e, name, bytes, nki_name) \
  case DType::e: return &ElementLoad<DType::e>;
    NSIM_DTYPE_TABLE(NSIM_DTYPE_LOAD)
#undef NSIM_DTYPE_LOAD
  }
  return &ElementLoad<DType::kF32>;
}

StoreRunFn StoreRunFor(DType t) {
  if (t == DType::kF32) return &F32Store;
  if (t == DType::kBF16) return g_bf16->store;
  switch (t) {
#define NSIM_DTYPE_STORE(e, name, bytes, nki_name) \
  case DType::e: return &ElementStore<DType::e>;
    NSIM_DTYPE_TABLE(NSIM_DTYPE_STORE)
#undef NSIM_DTYPE_STORE
  }
  return &ElementStore<DType::kF32>;
}

void LoadRun(DType t, const uint8_t* p, int64_t n, float* out) { LoadRunFor(t)(p, n, out); }

void StoreRun(DType t, uint8_t* p, int64_t n, const float* in) { StoreRunFor(t)(in, n, p); }

}  // namespace nsim
