#include "backend/generator.h"

#include <cmath>
#include <tuple>

namespace nsim {
namespace at {
namespace {

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11).
std::array<uint32_t, 4> Philox(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key) {
  constexpr uint32_t kM0 = 0xD2511F53, kM1 = 0xCD9E8D57;
  constexpr uint32_t kW0 = 0x9E3779B9, kW1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * ctr[0];
    const uint64_t p1 = static_cast<uint64_t>(kM1) * ctr[2];
    ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<uint32_t>(p0)};
    key = {key[0] + kW0, key[1] + kW1};
  }
  return ctr;
}

}  // namespace

void Generator::manual_seed(uint64_t seed) {
  seed_ = seed;
  counter_ = 0;
  used_ = 4;
  has_spare_normal_ = false;
}

void Generator::Refill() {
  block_ = Philox({static_cast<uint32_t>(counter_), static_cast<uint32_t>(counter_ >> 32), 0, 0},
                  {static_cast<uint32_t>(seed_), static_cast<uint32_t>(seed_ >> 32)});
  ++counter_;
  used_ = 0;
}

uint32_t Generator::NextUint32() {
  if (used_ == 4) Refill();
  return block_[used_++];
}

float Generator::NextUniform() {
  return static_cast<float>(NextUint32() >> 8) * (1.0f / 16777216.0f);
}

float Generator::NextNormal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  const auto [first, second] = NextNormalPair();
  spare_normal_ = second;
  has_spare_normal_ = true;
  return first;
}

// Box-Muller on two uniforms; 1 - u keeps the log argument in (0, 1].
std::pair<float, float> Generator::NextNormalPair() {
  const double u1 = 1.0 - NextUniform(), u2 = NextUniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 2.0 * M_PI * u2;
  return {static_cast<float>(r * std::cos(theta)), static_cast<float>(r * std::sin(theta))};
}

void Generator::NextNormals(float* out, int64_t n) {
  int64_t i = 0;
  if (n > 0 && has_spare_normal_) out[i++] = NextNormal();
  for (; i + 1 < n; i += 2) std::tie(out[i], out[i + 1]) = NextNormalPair();
  if (i < n) out[i] = NextNormal();  // keeps the pair's second value as the spare
}

Generator& DefaultGenerator() {
  static Generator g(0);
  return g;
}

void manual_seed(uint64_t seed) { DefaultGenerator().manual_seed(seed); }

}  // namespace at
}  // namespace nsim
