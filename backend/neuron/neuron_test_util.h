#pragma once
// Helpers for the Neuron backend tests: tensors on neuron:0, comparison
// with the CPU reference at the dtype's tolerance, and the runtime records
// of core 0.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backend/factories.h"
#include "backend/neuron/device_glue.h"
#include "backend/ops.h"
#include "backend/test_util.h"
#include "runtime/clock.h"
#include "runtime/runtime.h"

namespace nsim {
namespace neuron {
namespace testing {

using at::Tensor;

inline at::Device Neuron0() { return at::Device("neuron:0"); }
inline rt::NeuronCoreDevice& Core0() { return rt::Runtime::Get().core(0); }
inline Tensor Dev(const Tensor& t) { return t.to(Neuron0()); }

// Relative tolerance of one rounding step: bf16 has 8 significant bits,
// fp16 11; fp32 results may differ from the reference only by fp32
// rounding in a different order.
inline float Tolerance(at::ScalarType t) {
  switch (t) {
    case at::kBFloat16: return 1.0f / 128;
    case at::kHalf: return 1.0f / 1024;
    default: return 1e-5f;
  }
}

// `got` (any device) equals the CPU reference `want` within `ulps` of the
// dtype's rounding step, relative to max(|want|, 1).
inline void ExpectClose(const Tensor& got, const Tensor& want, const std::string& what, float ulps = 1) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  const std::vector<float> g = at::testing::Values(got), w = at::testing::Values(want);
  const float tol = ulps * Tolerance(want.dtype());
  int bad = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const bool ok = std::fabs(g[i] - w[i]) <= tol * std::max(1.0f, std::fabs(w[i])) ||
                    (std::isnan(g[i]) && std::isnan(w[i]));
    if (!ok && bad++ < 5) ADD_FAILURE() << what << " [" << i << "]: got " << g[i] << ", want " << w[i];
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << g.size() << " elements differ";
}

// Records of core 0 since the last ClearRecords(), by kind.
inline int CountRecords(rt::RecordKind kind) {
  int n = 0;
  for (const rt::ExecutionHandle& r : Core0().records()) n += r->kind == kind;
  return n;
}

inline Picos Now() { return rt::SimClock::Get().now(); }

}  // namespace testing
}  // namespace neuron
}  // namespace nsim
