// Graph breaks: an op the backend cannot compile, or an in-place write, is an
// error naming the op with fullgraph; without it the graph is split there,
// the op runs eagerly between two compiled regions, and later calls replay
// the same split. Uses a test backend that compiles everything but aten::exp.
#include <gtest/gtest.h>

#include "backend/compile/compile.h"
#include "backend/factories.h"
#include "backend/ops.h"
#include "backend/record_function.h"
#include "sim/base/error.h"

namespace nsim {
namespace {

using at::Tensor;

class NoExpBackend : public compiler::CompilerBackend {
 public:
  std::string name() const override { return "no_exp"; }
  std::optional<std::string> Unsupported(const compiler::Graph&, const compiler::Graph::Call& c) const override {
    if (c.op.schema().full_name() == "aten::exp") return std::string("no_exp has no lowering for it");
    return std::nullopt;
  }
  std::unique_ptr<compiler::RegionExecutor> Compile(const compiler::Graph& g, const std::string& name) const override {
    return compiler::GetBackend("eager").Compile(g, name);
  }
};
const bool g_registered = (compiler::RegisterBackend(std::make_unique<NoExpBackend>()), true);

Tensor ExpInTheMiddle(const Tensor& x) { return at::exp(x * 2.0) + 1.0; }

// Counts the ops that ran on the CPU key (i.e. for real, not traced).
class CpuOps : public at::OpObserver {
 public:
  void OnOpBegin(const at::OpCall& c) override {
    if (c.key == at::DispatchKey::CPU && c.depth == 0) names.push_back(c.schema->full_name());
  }
  std::vector<std::string> names;
};

std::string Error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const SimError& e) {
    return e.what();
  }
  return "";
}

TEST(GraphBreak, FullgraphNamesTheOp) {
  auto f = compile(&ExpInTheMiddle, CompileOptions{.fullgraph = true, .backend = "no_exp"});
  EXPECT_EQ(Error([&] { f(at::randn({4, 8}, 0)); }),
            "compile(fullgraph=True): cannot capture aten::exp: no_exp has no lowering for it");
}

TEST(GraphBreak, SplitsAndRunsTheOpEagerly) {
  compiler::ResetFrameIds();
  auto f = compile(&ExpInTheMiddle, CompileOptions{.fullgraph = false, .backend = "no_exp"});
  for (uint64_t seed : {0, 1}) {  // the trace, then a replay with new data
    const Tensor x = at::randn({4, 8}, seed);
    CpuOps ops;
    at::AddOpObserver(&ops);
    const Tensor y = f(x);
    at::RemoveOpObserver(&ops);
    const Tensor want = ExpInTheMiddle(x);
    for (int64_t i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(y.at<float>({1, i}), want.at<float>({1, i}));
    if (seed == 1) {  // the replay: region, eager exp, region
      EXPECT_EQ(ops.names, (std::vector<std::string>{"aten::mul.Tensor", "aten::exp", "aten::add.Tensor"}));
    }
  }
  EXPECT_EQ(f.core().traces(), 1);
  ASSERT_EQ(f.core().regions().size(), 2u);
  EXPECT_EQ(f.core().regions()[0]->name(), "Torch-Compiled Region: 0/0");
  EXPECT_EQ(f.core().regions()[1]->name(), "Torch-Compiled Region: 1/0");
}

TEST(GraphBreak, InPlaceWriteIsABreak) {
  auto fill = [](const Tensor& x) {
    Tensor y = x * 2.0;
    y.fill_(3.0);
    return y + 1.0;
  };
  auto strict = compile(fill, CompileOptions{.fullgraph = true, .backend = "eager"});
  EXPECT_EQ(Error([&] { strict(at::randn({4}, 0)); }),
            "compile(fullgraph=True): cannot capture aten::fill_.Scalar: writes into a traced tensor in place");
  auto lenient = compile(fill, CompileOptions{.fullgraph = false, .backend = "eager"});
  for (int call = 0; call < 2; ++call) EXPECT_FLOAT_EQ(lenient(at::randn({4}, 0)).at<float>({2}), 4.0f);
  EXPECT_EQ(lenient.core().traces(), 1);
}

// Values a region computes that the function still holds at the break are
// outputs of that region, so the code after the break can use them.
TEST(GraphBreak, LiveValuesCrossTheBreak) {
  auto f = compile(
      [](const Tensor& x) {
        const Tensor a = x + 1.0;
        const Tensor b = at::exp(a);
        return a * b;
      },
      CompileOptions{.backend = "no_exp"});
  const Tensor x = at::randn({3}, 0);
  const Tensor a = x + 1.0;
  const Tensor want = a * at::exp(a);
  for (int call = 0; call < 2; ++call) EXPECT_FLOAT_EQ(f(x).at<float>({1}), want.at<float>({1}));
  EXPECT_EQ(f.core().regions()[0]->graph().outputs().size(), 1u);
}

}  // namespace
}  // namespace nsim
