#pragma once
// All-reduce (sum) of one buffer per core across cores 0..N-1 of a chip, as a
// ring over DMA: N-1 reduce-scatter steps, then N-1 all-gather steps. Each
// core's buffer is cut into N chunks of [128, F] rows; in every step core p
// pulls one chunk from core p-1's buffer (a core-to-core copy through HBM,
// competing for the stacks like any DMA) and adds it to (reduce-scatter) or
// stores it over (all-gather) its own. Every step is one SPMD launch on the
// chip, so the launch boundary is the ring's barrier and the chip's clock
// advances by each step's device time.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/dtype.h"
#include "sim/model/chip.h"

namespace nsim {

struct AllReduceResult {
  Picos start = 0;           // chip time the first step began
  Picos device_time = 0;     // all steps, back to back
  int64_t chunk_bytes = 0;   // bytes moved per core per step
  std::vector<GridResult> steps;  // 2(N-1) launches, reduce-scatter first
};

// Sums, in place, the `elements`-element `dtype` buffers at chip addresses
// buffers[i] (one per core i, N = buffers.size() >= 2). `elements` must be a
// multiple of 128 * N. Throws SimError for a bad shape, too many cores, or an
// address outside chip memory.
AllReduceResult RingAllReduce(Chip& chip, const std::vector<uint64_t>& buffers, int64_t elements, DType dtype);

// The ring's pieces, for callers that launch the steps themselves (the
// runtime's AllReduce, on the chip scheduler).
// Throws SimError unless 2 <= n <= max_cores and `elements` is a positive
// multiple of 128 x n.
void CheckRingShape(int n, int max_cores, int64_t elements);
constexpr int RingSteps(int n) { return 2 * (n - 1); }
// The kernel text program `p` runs in step `step` (reduce-scatter steps
// first): HBM tensors b0..b<n-1> are the buffers, bound by the caller.
std::string RingStepKernel(int n, int64_t elements, DType dtype, int step, int p);

}  // namespace nsim
