#pragma once
// The host's own arithmetic ceiling for the TensorE product (issue 12): how
// many fp32 multiply-adds per CPU second one thread of this host makes in an
// ideal loop of independent fused multiply-adds, with AVX2+FMA: the vector
// unit the simulator's GEMM uses when the host has it (sim/isa/gemm.h).
// A stream whose values need F multiply-adds per iteration cannot run faster
// than this rate / F iterations per second with values on, so sim_speed
// reports that ceiling next to the value-heavy rows.
#include <cstdint>

namespace nsim {
namespace bench {

// fp32 multiply-adds per CPU second of this thread, measured over `fmas`
// multiply-adds (at least a few hundred million to time reliably); 0 on a
// host without AVX2+FMA (the GEMM's portable build, not measured).
double HostFmaRate(int64_t fmas);

}  // namespace bench
}  // namespace nsim
