#pragma once
// Builders of the validation kernels. The kernel language has no loops: a
// loop is unrolled here, in C++, with the same tiles, DMAs and engines per
// iteration as the NKI source, and the compiler's allocation made explicit:
// a tile declared inside a loop body gets `buffers` physical buffers used in
// rotation (modulo allocation), and semaphores order every reuse of a buffer
// (an iteration's load waits until the consumer of the same buffer `buffers`
// iterations back has finished).
#include <cstdint>

#include "sim/kernel/kernel.h"

namespace nsim {
namespace validation {

// CS149 vector add, fp32: out = a + b over `n` elements, `iterations` of a
// [partitions x free] tile: both loads on the Sync engine's queue, the add on
// VectorE, the store on GpSimd's queue (the profile in hardware-measurements.md).
Kernel VectorAddKernel(const char* name, int64_t n, int64_t partitions, int64_t free, int buffers);

// NKI matmul tutorial, bf16, C[M,N] = lhsT[K,M]^T rhs[K,N] (hardware-measurements.md section 3).
struct MatmulShape {
  int64_t m = 4096, k = 8192, n = 8192;
};
// tiled: per (128-row M tile, 512-column N tile), 64 K tiles each loading
// lhsT [128x128] and rhs [128x512] and accumulating into one PSUM tile; copy
// out on VectorE; store.
Kernel MatmulTiledKernel(const MatmulShape& s, int buffers);
// hoist loads: as tiled, but the lhsT tiles of an M row are loaded once
// (64 loads into one row buffer) and kept across the N tiles.
Kernel MatmulHoistKernel(const MatmulShape& s, int buffers);
// block free dims: 2x2 blocks of M and N tiles share each loaded K tile
// (2 lhsT + 2 rhs loads, 4 matmuls into 4 PSUM tiles per K tile).
Kernel MatmulBlockKernel(const MatmulShape& s, int buffers);
// fully optimised: blocks of 16 M tiles x 2 N tiles x 8 K tiles; per (N
// block, K block) 8 rhs loads of [128 x 1024], per M block 8 lhsT loads of
// [128 x 2048]; each 8-matmul accumulation group is added into an SBUF
// result block on VectorE (loop_reduce); the result blocks are stored at the
// end of each N block. Loop-local tiles get as many buffers (up to `buffers`)
// as SBUF holds.
Kernel MatmulOptimisedKernel(const MatmulShape& s, int buffers);

}  // namespace validation
}  // namespace nsim
