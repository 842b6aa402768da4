#include "sim/base/host_cpu.h"

namespace nsim {

bool HostHasAvx2Fma() {
#if defined(__x86_64__) || defined(__i386__)
  // HostBuild asks from static initialisers: __builtin_cpu_init makes the
  // answer valid even before libgcc's own constructor has run.
  static const bool has = (__builtin_cpu_init(), __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
  return has;
#else
  return false;
#endif
}

bool HostHasAvx512Bf16() {
#if defined(__x86_64__) || defined(__i386__)
  // __builtin_cpu_supports reports AVX-512 features only when XCR0 shows the
  // OS saves their state.
  static const bool has = (__builtin_cpu_init(), __builtin_cpu_supports("avx512f") &&
                                                    __builtin_cpu_supports("avx512bw") &&
                                                    __builtin_cpu_supports("avx512vl") &&
                                                    __builtin_cpu_supports("avx512bf16"));
  return has;
#else
  return false;
#endif
}

}  // namespace nsim
