#pragma once
// Small kernels and helpers for the runtime tests.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/clock.h"
#include "runtime/runtime.h"
#include "sim/base/error.h"
#include "sim/kernel/parser.h"

namespace nsim {
namespace rt {
namespace testing {

// out = x * factor over a [4, 8] fp32 tensor: DMA in, one VectorE
// tensor_scalar, DMA out. A different factor is a different kernel (hash).
inline Kernel ScaleKernel(double factor = 2.0) {
  return ParseKernel(
      "kernel scale\n"
      "tensor x   hbm  f32 [4, 8]\n"
      "tensor out hbm  f32 [4, 8]\n"
      "tensor t   sbuf f32 [4, 8]\n"
      "tensor u   sbuf f32 [4, 8]\n"
      "semaphore loaded\n"
      "semaphore done\n"
      "sync:   dma_copy t, x signal=loaded\n"
      "vector: tensor_scalar u, t op0=multiply scalar0=" +
          std::to_string(factor) +
          " wait=loaded>=1 signal=done\n"
          "sync:   dma_copy out, u wait=done>=1\n",
      "scale.nk");
}
constexpr uint64_t kScaleTensorBytes = 4 * 8 * sizeof(float);

inline std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

// The message of the SimError (or RuntimeError) `f` throws, or "no error".
template <typename F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const SimError& e) {
    return e.what();
  }
  return "no error";
}

inline Picos Now() { return SimClock::Get().now(); }
constexpr Picos Us(double us) { return static_cast<Picos>(us * 1e6); }

// A fixture that gives each test a fresh runtime (no cores, the default
// config, the clock at 0) and leaves none behind.
class FreshRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override { Runtime::Get().Reset(); }
  void TearDown() override { Runtime::Get().Reset(); }
};

}  // namespace testing
}  // namespace rt
}  // namespace nsim
