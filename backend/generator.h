#pragma once
// Generator: a deterministic random stream (Philox4x32-10, the counter-based
// generator PyTorch's CUDA backend uses), so a seed gives the same tensor on
// every platform and run. Uniforms take the top 24 bits of each 32-bit draw;
// normals use Box-Muller on pairs of uniforms.
//
//   Generator g(42);
//   Tensor x = randn({4, 512}, g, kBFloat16);
//   manual_seed(0);   // reseeds the default generator
#include <array>
#include <cstdint>
#include <utility>

namespace nsim {
namespace at {

class Generator {
 public:
  explicit Generator(uint64_t seed = 0) { manual_seed(seed); }
  void manual_seed(uint64_t seed);
  uint64_t seed() const { return seed_; }

  uint32_t NextUint32();
  float NextUniform();  // [0, 1)
  float NextNormal();   // mean 0, std 1
  // n normals: exactly what n calls of NextNormal() return, leaving the same
  // state, but whole Box-Muller pairs at a time without the per-call
  // bookkeeping (randn of large tensors).
  void NextNormals(float* out, int64_t n);

 private:
  std::pair<float, float> NextNormalPair();  // one Box-Muller draw
  void Refill();
  uint64_t seed_ = 0;
  uint64_t counter_ = 0;
  std::array<uint32_t, 4> block_{};
  int used_ = 4;
  bool has_spare_normal_ = false;
  float spare_normal_ = 0;
};

// The process-wide generator used when none is passed.
Generator& DefaultGenerator();
void manual_seed(uint64_t seed);

}  // namespace at
}  // namespace nsim
