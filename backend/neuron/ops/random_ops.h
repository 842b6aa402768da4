#pragma once
// The device's uniform random numbers (kernels/random_kernel.h): the
// building block of every random fill, which the frameworks compose from it
// (torch_nsim/csrc/random_ops.cc).
#include <cstdint>

#include "backend/tensor.h"

namespace nsim {
namespace neuron {

// Writes the uniforms of elements 0 .. n-1 (and the tile padding after them)
// into `out`, a contiguous fp32 neuron tensor of RandomPaddedCount(n)
// elements, from `keys` (22 fp32 round keys of SpeckRoundKeys, on the same
// device). `op` names the caller in errors.
void LaunchRandomUniform(const std::string& op, const at::Tensor& keys, const at::Tensor& out, int64_t n);

}  // namespace neuron
}  // namespace nsim
