#include "benchmarks/host_fma_rate.h"

#include <immintrin.h>

#include "benchmarks/raw_systemc_rate.h"
#include "sim/base/host_cpu.h"

namespace nsim {
namespace bench {
namespace {

// 12 independent chains of 8 lanes: enough to cover the FMA latency on both
// FMA pipes of a Zen or Intel core, as the GEMM's 6x2 tile. Named variables,
// not an array: the compiler keeps them in registers.
#define NSIM_FMA_CHAINS(STEP) STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) \
  STEP(6) STEP(7) STEP(8) STEP(9) STEP(10) STEP(11)

__attribute__((target("avx2,fma"))) float FmaLoopAvx2(int64_t rounds) {
#define NSIM_INIT(i) __m256 c##i = _mm256_set1_ps(static_cast<float>(i) * 1e-3f);
#define NSIM_FMA(i) c##i = _mm256_fmadd_ps(c##i, a, b);
#define NSIM_SUM(i) s = _mm256_add_ps(s, c##i);
  NSIM_FMA_CHAINS(NSIM_INIT)
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(1e-4f);
  for (int64_t r = 0; r < rounds; ++r) {
    NSIM_FMA_CHAINS(NSIM_FMA)
  }
  __m256 s = _mm256_setzero_ps();
  NSIM_FMA_CHAINS(NSIM_SUM)
  return _mm256_cvtss_f32(s);
#undef NSIM_INIT
#undef NSIM_FMA
#undef NSIM_SUM
}

#undef NSIM_FMA_CHAINS

}  // namespace

double HostFmaRate(int64_t fmas) {
  if (!HostHasAvx2Fma()) return 0;  // the portable GEMM: no ceiling reported
  constexpr int64_t kPerRound = 12 * 8;
  const int64_t rounds = fmas / kPerRound;
  const double start = ThreadCpuSeconds();
  volatile float sink = FmaLoopAvx2(rounds);
  (void)sink;
  const double seconds = ThreadCpuSeconds() - start;
  return static_cast<double>(rounds * kPerRound) / seconds;
}

}  // namespace bench
}  // namespace nsim
