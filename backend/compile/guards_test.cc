// Guards and recompilation: a repeated call replays the cached program, a
// change of shape, dtype, strides or a number argument traces again and
// compiles the next recompile of the region ("Torch-Compiled Region: 0/1"),
// and the host time model charges guard evaluation and the graph lookup.
#include <gtest/gtest.h>

#include "backend/compile/compile.h"
#include "backend/compile/host_costs.h"
#include "backend/factories.h"
#include "backend/ops.h"
#include "runtime/clock.h"

namespace nsim {
namespace {

using at::Tensor;

const CompileOptions kEager{.fullgraph = true, .backend = "eager"};

Tensor Scale(const Tensor& x, const Tensor& w) { return x * w + 1.0; }

std::vector<std::string> RegionNames(const compiler::CompiledFunctionCore& core) {
  std::vector<std::string> names;
  for (const auto& r : core.regions()) names.push_back(r->name());
  return names;
}

TEST(Guards, RepeatedCallHitsTheCache) {
  compiler::ResetFrameIds();
  auto f = compile(&Scale, kEager);
  const Tensor x = at::randn({4, 8}, 0), w = at::randn({8}, 1);
  f(x, w);
  f(x, w);
  f(at::randn({4, 8}, 2), w);  // new data, same metadata: still a hit
  EXPECT_EQ(f.core().traces(), 1);
  EXPECT_EQ(RegionNames(f.core()), std::vector<std::string>{"Torch-Compiled Region: 0/0"});
  EXPECT_EQ(f.core().guards(),
            "TENSOR_MATCH arg0 Float[4, 8] stride=[8, 1] cpu\n"
            "TENSOR_MATCH arg1 Float[8] stride=[1] cpu\n");
}

TEST(Guards, NewShapeRecompilesAndBothStayCached) {
  compiler::ResetFrameIds();
  auto f = compile(&Scale, kEager);
  const Tensor w = at::randn({8}, 1);
  f(at::randn({4, 8}, 0), w);
  f(at::randn({2, 8}, 0), w);
  EXPECT_EQ(f.core().recompile_reason(),
            "arg0: Float[2, 8] stride=[8, 1] cpu != Float[4, 8] stride=[8, 1] cpu");
  f(at::randn({4, 8}, 0), w);
  f(at::randn({2, 8}, 0), w);
  EXPECT_EQ(f.core().traces(), 2);
  EXPECT_EQ(RegionNames(f.core()),
            (std::vector<std::string>{"Torch-Compiled Region: 0/0", "Torch-Compiled Region: 0/1"}));
}

TEST(Guards, DtypeAndStridesAreGuarded) {
  compiler::ResetFrameIds();
  auto f = compile(&Scale, kEager);
  const Tensor x = at::randn({8, 8}, 0), w = at::randn({8}, 1);
  f(x, w);
  f(x.to(at::kBFloat16), w.to(at::kBFloat16));
  const Tensor xt = x.t();  // same sizes, transposed strides
  const Tensor y = f(xt, w);
  EXPECT_EQ(f.core().traces(), 3);
  EXPECT_EQ(RegionNames(f.core()).back(), "Torch-Compiled Region: 0/2");
  for (int64_t i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(y.at<float>({i, 0}), (xt * w + 1.0).at<float>({i, 0}));
}

TEST(Guards, NumberArgumentsAreSpecialised) {
  compiler::ResetFrameIds();
  auto f = compile([](const Tensor& x, double eps) { return x + eps; }, kEager);
  const Tensor x = at::zeros({4});
  EXPECT_FLOAT_EQ(f(x, 0.5).at<float>({0}), 0.5f);
  EXPECT_FLOAT_EQ(f(x, 0.5).at<float>({0}), 0.5f);
  EXPECT_FLOAT_EQ(f(x, 0.25).at<float>({0}), 0.25f);
  EXPECT_EQ(f.core().traces(), 2);
  EXPECT_EQ(f.core().recompile_reason(), "arg1: 0.25 (float) != 0.5 (float)");
}

// A cache hit costs graph_lookup + guard_eval per guard on the host (the
// CPU ops of the eager backend cost nothing), a miss also the failing guard
// sets and the trace and compilation of the new region.
TEST(Guards, HostCostOfLookupAndGuards) {
  compiler::ResetFrameIds();
  auto f = compile(&Scale, kEager);
  const compiler::HostCosts c = compiler::HostCosts::For(at::Device(at::kCPU));
  EXPECT_GT(c.graph_lookup, 0);
  EXPECT_GT(c.guard_eval, 0);
  const Tensor x = at::randn({4, 8}, 0), w = at::randn({8}, 1);
  rt::SimClock& clock = rt::SimClock::Get();
  Picos t0 = clock.now();
  f(x, w);
  EXPECT_EQ(clock.now() - t0, 2 * c.trace_op + c.graph_compile + c.graph_lookup + 2 * c.guard_eval);
  t0 = clock.now();
  f(x, w);
  EXPECT_EQ(clock.now() - t0, c.graph_lookup + 2 * c.guard_eval);
  t0 = clock.now();
  f(at::randn({2, 8}, 0), w);  // one failing entry, then a new region
  EXPECT_EQ(clock.now() - t0, 2 * c.guard_eval + 2 * c.trace_op + c.graph_compile + c.graph_lookup + 2 * c.guard_eval);
}

}  // namespace
}  // namespace nsim
