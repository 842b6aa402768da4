#pragma once
// What the host CPU offers beyond the portable x86-64 baseline, checked once
// at run time. Code built for the host's vector units (a separate file with
// -mavx2, see sim/isa/gemm.h, sim/memory/dtype_runs.h) runs only when this
// says so; the default build stays portable.
namespace nsim {

bool HostHasAvx2Fma();  // AVX2 and FMA (Intel Haswell / AMD Zen and later)

}  // namespace nsim
