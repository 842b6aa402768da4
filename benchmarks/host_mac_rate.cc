#include "benchmarks/host_mac_rate.h"

#include <immintrin.h>

#include "benchmarks/raw_systemc_rate.h"
#include "sim/base/host_cpu.h"

namespace nsim {
namespace bench {
namespace {

// 12 independent chains: enough to cover the latency on every multiply-add
// pipe of a Zen or Intel core, as the GEMM's 6x2 tiles. Named variables, not
// an array: the compiler keeps them in registers.
#define NSIM_CHAINS(STEP) STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) \
  STEP(6) STEP(7) STEP(8) STEP(9) STEP(10) STEP(11)
constexpr int64_t kChains = 12;

// 8 fp32 lanes, one multiply-add each per instruction.
__attribute__((target("avx2,fma"))) float FmaLoop(int64_t rounds) {
#define NSIM_INIT(i) __m256 c##i = _mm256_set1_ps(static_cast<float>(i) * 1e-3f);
#define NSIM_STEP(i) c##i = _mm256_fmadd_ps(c##i, a, b);
#define NSIM_SUM(i) s = _mm256_add_ps(s, c##i);
  NSIM_CHAINS(NSIM_INIT)
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(1e-4f);
  for (int64_t r = 0; r < rounds; ++r) {
    NSIM_CHAINS(NSIM_STEP)
  }
  __m256 s = _mm256_setzero_ps();
  NSIM_CHAINS(NSIM_SUM)
  return _mm256_cvtss_f32(s);
#undef NSIM_INIT
#undef NSIM_STEP
#undef NSIM_SUM
}

// 16 fp32 lanes, two bf16 multiply-adds each per instruction.
__attribute__((target("avx512f,avx512bf16"))) float DotLoop(int64_t rounds) {
#define NSIM_INIT(i) __m512 c##i = _mm512_set1_ps(static_cast<float>(i) * 1e-3f);
#define NSIM_STEP(i) c##i = _mm512_dpbf16_ps(c##i, a, b);
#define NSIM_SUM(i) s = _mm512_add_ps(s, c##i);
  NSIM_CHAINS(NSIM_INIT)
  const __m512bh a = (__m512bh)_mm512_set1_epi32(0x3f7f3f7f), b = (__m512bh)_mm512_set1_epi32(0x38d138d1);
  for (int64_t r = 0; r < rounds; ++r) {
    NSIM_CHAINS(NSIM_STEP)
  }
  __m512 s = _mm512_setzero_ps();
  NSIM_CHAINS(NSIM_SUM)
  return _mm512_cvtss_f32(s);  // a sink: one lane is enough
#undef NSIM_INIT
#undef NSIM_STEP
#undef NSIM_SUM
}

#undef NSIM_CHAINS

}  // namespace

double HostMultiplyAddRate(int64_t macs) {
  const bool dot = HostHasAvx512Bf16();
  if (!dot && !HostHasAvx2Fma()) return 0;  // the portable GEMM: no ceiling reported
  const int64_t per_round = kChains * (dot ? 32 : 8);
  const int64_t rounds = macs / per_round;
  const double start = ThreadCpuSeconds();
  volatile float sink = dot ? DotLoop(rounds) : FmaLoop(rounds);
  (void)sink;
  const double seconds = ThreadCpuSeconds() - start;
  return static_cast<double>(rounds * per_round) / seconds;
}

}  // namespace bench
}  // namespace nsim
