#pragma once
// The random state of each neuron device: (seed, offset), as CUDA keeps its
// Philox state. Every random kernel takes the key of (seed, offset) and
// advances offset by one, so a seed gives the same numbers whatever non-random
// ops ran in between (random_ops.cc).
#include <cstdint>
#include <utility>

namespace torch_nsim {

constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // CUDA's default_rng_seed_val

std::pair<uint64_t, uint64_t> RngState(int device);
void SetRngState(int device, uint64_t seed, uint64_t offset);

}  // namespace torch_nsim
