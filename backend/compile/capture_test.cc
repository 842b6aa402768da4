// Capture: the ops a function dispatches become a readable ATen graph, with
// metadata from the Meta kernels, scalars as immediates and composite ops
// decomposed. Uses the "eager" backend on CPU tensors, so it checks capture
// alone, independently of any device lowering.
#include <gtest/gtest.h>

#include <iostream>

#include "backend/compile/compile.h"
#include "backend/compile/graph_printer.h"
#include "backend/factories.h"
#include "backend/ops.h"

namespace nsim {
namespace {

using at::Tensor;

Tensor RmsNorm(const Tensor& x, const Tensor& w) {
  return x * at::rsqrt(x.mul(x).mean({-1}, true) + 1e-6) * w;
}

const compiler::Graph& OnlyGraph(const CompiledFunction<Tensor (*)(const Tensor&, const Tensor&)>& f) {
  EXPECT_EQ(f.core().regions().size(), 1u);
  return f.core().regions().at(0)->graph();
}

TEST(Capture, RecordsTheOpsAsAnAtenGraph) {
  compiler::ResetFrameIds();
  auto f = compile(&RmsNorm, CompileOptions{.fullgraph = true, .backend = "eager"});
  const Tensor x = at::randn({4, 512}, 0, at::kBFloat16);
  const Tensor w = at::randn({512}, 1, at::kBFloat16);
  f(x, w);
  const compiler::Graph& g = OnlyGraph(f);
  std::cout << compiler::FormatGraph(g) << "\n" << compiler::FormatTabular(g);
  EXPECT_EQ(compiler::FormatGraph(g),
            "graph():\n"
            "    %arg0 : BFloat16[4, 512] cpu = placeholder[target=arg0]\n"
            "    %arg1 : BFloat16[512] cpu = placeholder[target=arg1]\n"
            "    %mul : BFloat16[4, 512] = call_function[target=aten::mul.Tensor](args = (%arg0, %arg0))\n"
            "    %mean : BFloat16[4, 1] = call_function[target=aten::mean.dim](args = (%mul, [-1], True))\n"
            "    %add : BFloat16[4, 1] = call_function[target=aten::add.Tensor](args = (%mean, 1e-06))\n"
            "    %rsqrt : BFloat16[4, 1] = call_function[target=aten::rsqrt](args = (%add,))\n"
            "    %mul_1 : BFloat16[4, 512] = call_function[target=aten::mul.Tensor](args = (%arg0, %rsqrt))\n"
            "    %mul_2 : BFloat16[4, 512] = call_function[target=aten::mul.Tensor](args = (%mul_1, %arg1))\n"
            "    return (%mul_2,)\n");
  EXPECT_EQ(f.core().regions()[0]->name(), "Torch-Compiled Region: 0/0");
}

const CompileOptions kEager{.fullgraph = true, .backend = "eager"};

template <class F>
const compiler::Graph& FirstGraph(const CompiledFunction<F>& f) {
  return f.core().regions().at(0)->graph();
}

std::vector<std::string> Targets(const compiler::Graph& g) {
  std::vector<std::string> names;
  for (const compiler::Graph::Call& c : g.calls()) names.push_back(c.op.schema().full_name());
  return names;
}

// A tensor the function captures (a weight in a closure) is an extra input
// of the graph, like FX's lifted constants; Python numbers stay immediates.
TEST(Capture, CapturedTensorsBecomePlaceholders) {
  const Tensor w = at::randn({8}, 1);
  auto f = compile([&w](const Tensor& x) { return (x - 0.5) * w; }, kEager);
  const Tensor x = at::randn({2, 8}, 0);
  const Tensor y = f(x);
  EXPECT_EQ(compiler::FormatGraph(FirstGraph(f)),
            "graph():\n"
            "    %arg0 : Float[2, 8] cpu = placeholder[target=arg0]\n"
            "    %_tensor_constant0 : Float[8] cpu = placeholder[target=_tensor_constant0]\n"
            "    %sub : Float[2, 8] = call_function[target=aten::sub.Tensor](args = (%arg0, 0.5))\n"
            "    %mul : Float[2, 8] = call_function[target=aten::mul.Tensor](args = (%sub, %_tensor_constant0))\n"
            "    return (%mul,)\n");
  EXPECT_FLOAT_EQ(y.at<float>({1, 3}), ((x - 0.5) * w).at<float>({1, 3}));
}

// Composite ops are decomposed into core ATen ops (AOTAutograd's table),
// computed in float32 for low-precision inputs.
TEST(Capture, CompositeOpsAreDecomposed) {
  auto softmax = compile([](const Tensor& x) { return x.softmax(-1); }, kEager);
  const Tensor x = at::randn({4, 16}, 0, at::kBFloat16);
  const Tensor y = softmax(x);
  EXPECT_EQ(Targets(FirstGraph(softmax)),
            (std::vector<std::string>{"aten::to.dtype", "aten::amax", "aten::sub.Tensor", "aten::exp",
                                      "aten::sum.dim_IntList", "aten::div.Tensor", "aten::to.dtype"}));
  const Tensor want = x.softmax(-1);
  for (int64_t i = 0; i < 16; ++i) EXPECT_FLOAT_EQ(y.at<float>({2, i}), want.at<float>({2, i}));

  auto layer_norm = compile([](const Tensor& x, const Tensor& w, const Tensor& b) {
    return at::layer_norm(x, {16}, w, b, 1e-5);
  }, kEager);
  const Tensor x32 = at::randn({4, 16}, 0), w = at::randn({16}, 1), b = at::randn({16}, 2);
  const Tensor ln = layer_norm(x32, w, b);
  EXPECT_EQ(Targets(FirstGraph(layer_norm)),
            (std::vector<std::string>{"aten::mean.dim", "aten::sub.Tensor", "aten::square", "aten::mean.dim",
                                      "aten::add.Tensor", "aten::rsqrt", "aten::mul.Tensor", "aten::mul.Tensor",
                                      "aten::add.Tensor"}));
  const Tensor ln_want = at::layer_norm(x32, {16}, w, b, 1e-5);
  for (int64_t i = 0; i < 16; ++i) EXPECT_NEAR(ln.at<float>({3, i}), ln_want.at<float>({3, i}), 1e-5);
}

// Several results, values the function drops (dead code) and a compiled
// function called inside another one (inlined into its graph).
TEST(Capture, TuplesDeadCodeAndNesting) {
  auto inner = compile([](const Tensor& x) { return at::exp(x); }, kEager);
  auto outer = compile([&inner](const Tensor& x) {
    const Tensor unused = at::sqrt(x);
    (void)unused;
    Tensor a = inner(x) + 1.0;
    Tensor b = x * 3.0;
    return std::make_tuple(a, b);
  }, kEager);
  const Tensor x = at::randn({5}, 0);
  auto [a, b] = outer(x);
  EXPECT_FLOAT_EQ(a.at<float>({2}), (at::exp(x) + 1.0).at<float>({2}));
  EXPECT_FLOAT_EQ(b.at<float>({2}), x.at<float>({2}) * 3.0f);
  EXPECT_EQ(Targets(FirstGraph(outer)),
            (std::vector<std::string>{"aten::exp", "aten::add.Tensor", "aten::mul.Tensor"}));
  EXPECT_EQ(FirstGraph(outer).outputs().size(), 2u);
  EXPECT_EQ(inner.core().traces(), 0);
}

// What the function sees while tracing: fakes with the real metadata and device.
TEST(Capture, FakesLookLikeTheInputs) {
  auto f = compile([](const Tensor& x) {
    EXPECT_EQ(x.sizes(), (at::IntList{3, 4}));
    EXPECT_EQ(x.dtype(), at::kBFloat16);
    EXPECT_TRUE(x.device().is_cpu());
    return x.t() * 2.0;
  }, kEager);
  const Tensor x = at::randn({3, 4}, 0, at::kBFloat16);
  const Tensor y = f(x);
  EXPECT_EQ(y.sizes(), (at::IntList{4, 3}));
  EXPECT_FLOAT_EQ(y.at<float>({1, 2}), (x.t() * 2.0).at<float>({1, 2}));
}

}  // namespace
}  // namespace nsim
