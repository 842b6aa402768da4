#pragma once
// The host's own arithmetic ceiling for the TensorE product (issue 12): how
// many multiply-adds per CPU second one thread of this host makes in an
// ideal loop of independent ones, on the vector instruction the simulator's
// GEMM uses for bf16 operands on this host (sim/isa/gemm.h): VDPBF16PS with
// AVX-512 BF16 (two bf16 products per fp32 lane), else fp32 FMAs with AVX2.
// A stream whose values need F multiply-adds per iteration cannot run faster
// than this rate / F iterations per second with values on, so sim_speed
// reports that ceiling next to the value-heavy rows.
#include <cstdint>

namespace nsim {
namespace bench {

// Multiply-adds per CPU second of this thread, measured over `macs` of them
// (at least a few hundred million to time reliably); 0 on a host without
// AVX2+FMA (the GEMM's portable build, not measured).
double HostMultiplyAddRate(int64_t macs);

}  // namespace bench
}  // namespace nsim
