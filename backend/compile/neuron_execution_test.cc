// What a compiled region does on the device: exactly one kernel execution
// per call and no scalar copies (numbers are immediates), fewer HBM bytes
// than the same function op by op, recompilation for another device, and
// graph breaks on the device (an op without a lowering, a host read).
#include <gtest/gtest.h>

#include "backend/compile/compile.h"
#include "backend/compile/neuron_test_util.h"
#include "backend/factories.h"
#include "sim/base/error.h"

namespace nsim {
namespace {

using at::Tensor;
using testing::ActivitySince;
using testing::RecordCount;

const at::Device kNeuron("neuron:0");
const CompileOptions kFullgraph{.fullgraph = true};

Tensor Dev(const at::IntList& sizes, uint64_t seed, double scale = 1.0) {
  return (at::randn(sizes, seed) * scale).to(at::kBFloat16).to(kNeuron);
}

std::string Error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const SimError& e) {
    return e.what();
  }
  return "";
}

// One warmed-up call of the compiled and of the eager version.
template <class F, class... T>
std::pair<testing::RuntimeActivity, testing::RuntimeActivity> CompiledAndEager(F fn, const T&... args) {
  auto compiled = compile(fn, kFullgraph);
  compiled(args...);
  size_t from = RecordCount();
  compiled(args...);
  const testing::RuntimeActivity c = ActivitySince(from);
  from = RecordCount();
  fn(args...);
  return {c, ActivitySince(from)};
}

TEST(NeuronExecution, OneExecutionPerRegionCallAndFewerHbmBytes) {
  const Tensor x = Dev({4, 512}, 0), w = Dev({512}, 1), b = Dev({512}, 2);
  const Tensor xm = Dev({4, 256}, 0), w1 = Dev({256, 512}, 1, 1.0 / 16), w3 = Dev({256, 512}, 2, 1.0 / 16),
               w2 = Dev({512, 256}, 3, 1.0 / 16);
  const std::vector<std::pair<std::string, std::pair<testing::RuntimeActivity, testing::RuntimeActivity>>> runs = {
      {"rmsnorm", CompiledAndEager(&testing::RmsNorm, x, w)},
      {"layernorm", CompiledAndEager(&testing::LayerNorm, x, w, b)},
      {"softmax", CompiledAndEager(&testing::Softmax, x)},
      {"mlp", CompiledAndEager(&testing::Mlp, xm, w1, w3, w2)},
  };
  for (const auto& [name, r] : runs) {
    const auto& [compiled, eager] = r;
    EXPECT_EQ(compiled.executions, 1) << name;
    EXPECT_EQ(compiled.copies, 0) << name;  // the epsilon is an immediate
    EXPECT_GT(eager.executions, 1) << name;
    EXPECT_LT(compiled.hbm_bytes, eager.hbm_bytes) << name;
    std::cout << name << ": compiled " << compiled.executions << " execution, " << compiled.hbm_bytes
              << " HBM bytes, " << PicosToMicros(compiled.device_time) << " us; eager " << eager.executions
              << " executions + " << eager.copies << " copies, " << eager.hbm_bytes << " HBM bytes, "
              << PicosToMicros(eager.device_time) << " us\n";
  }
}

// A large input is tiled (rows over partitions, a chunked free dim) inside
// the one kernel: many DMA transfers, still one execution.
TEST(NeuronExecution, LargeInputsAreTiledInOneKernel) {
  auto f = compile([](const Tensor& x, const Tensor& b) { return at::relu(x * 0.5 + b) - at::sigmoid(x) * x; },
                   kFullgraph);
  const Tensor x = Dev({512, 8192}, 0), b = Dev({8192}, 1);
  f(x, b);
  const size_t from = RecordCount();
  f(x, b);
  ASSERT_EQ(ActivitySince(from).executions, 1);
  const Kernel& k = rt::Runtime::Get().core(0).records().back()->kernel->loaded->kernel();
  int64_t dmas = 0;
  for (int e = 0; e < kNumEngines; ++e) {
    for (const InstructionView& in : k.stream(e)) dmas += in.opcode == Opcode::kDmaCopy;
  }
  EXPECT_GT(dmas, 3 * 4);  // x, b and the output, in at least four tiles each
}

// What the kernel cannot hold is an error naming the limit, not a wrong kernel.
TEST(NeuronExecution, RegionTooLargeForSbufIsReported) {
  auto f = compile([](const Tensor& x) { return x * at::rsqrt((x * x).mean({-1}, true) + 1e-6) + x.exp(); },
                   kFullgraph);
  const std::string error = Error([&] { f(at::randn({128, 65536}, 0).to(kNeuron)); });
  EXPECT_NE(error.find("compile(): cannot compile compiled_region_"), std::string::npos) << error;
  EXPECT_NE(error.find("SBUF"), std::string::npos) << error;
}

TEST(NeuronExecution, AnotherDeviceRecompiles) {
  compiler::ResetFrameIds();
  auto f = compile(&testing::RmsNorm, kFullgraph);
  const Tensor x = at::randn({4, 512}, 0), w = at::randn({512}, 1);
  f(x.to(kNeuron), w.to(kNeuron));
  const at::Device other("neuron:1");
  const Tensor y = f(x.to(other), w.to(other));
  EXPECT_EQ(y.device(), other);
  EXPECT_EQ(f.core().regions().back()->name(), "Torch-Compiled Region: 0/1");
  EXPECT_LE(testing::MaxRelError(y, testing::RmsNorm(x, w)), 1e-5);
}

// Runtime::Reset makes new cores (here of LNC=2): the region's kernels,
// loaded on the old neuron:0, are generated and loaded again for the new one
// (one program per physical core) instead of being run stale.
// The ops each call dispatches, as the profiler sees them.
struct SeenOps : at::OpObserver {
  std::vector<std::string> names;
  void OnOpBegin(const at::OpCall& c) override { names.push_back(c.schema->full_name()); }
};

// An eager composite op is its decomposition lowered into one kernel: one
// execution under the op's own name (recording the decomposition is not
// observed), the kernel compile() makes of the op alone (same device time).
TEST(NeuronExecution, EagerCompositeOpsAreTheirCompiledDecomposition) {
  const Tensor x = Dev({8, 384}, 5), w = Dev({384}, 6), b = Dev({384}, 7);
  auto check = [](const std::string& op, auto fn, const auto&... args) {
    SeenOps seen;
    at::AddOpObserver(&seen);
    size_t from = RecordCount();
    fn(args...);  // the first call derives the kernel
    const testing::RuntimeActivity first = ActivitySince(from);
    at::RemoveOpObserver(&seen);
    EXPECT_EQ(seen.names, std::vector<std::string>{op});
    EXPECT_EQ(first.executions, 1) << op;
    const auto [compiled, eager] = CompiledAndEager(fn, args...);
    EXPECT_EQ(eager.executions, 1) << op;
    EXPECT_EQ(eager.device_time, compiled.device_time) << op;
  };
  check("aten::softmax.int", [](const Tensor& t) { return t.softmax(-1); }, x);
  check("aten::native_layer_norm",
        [](const Tensor& t, const Tensor& w, const Tensor& b) {
          return std::get<0>(at::native_layer_norm(t, {384}, w, b, 1e-5));
        },
        x, w, b);
  check("aten::var.correction", [](const Tensor& t) { return t.var({-1}, 0.0, true); }, x);
  static const auto log_softmax = at::FindOp<Tensor(const Tensor&, int64_t, bool)>("aten::_log_softmax");
  check("aten::_log_softmax", [](const Tensor& t) { return log_softmax.call(t, -1, false); }, x);
  static const auto softmax_backward =
      at::FindOp<Tensor(const Tensor&, const Tensor&, int64_t, at::ScalarType)>("aten::_softmax_backward_data");
  check("aten::_softmax_backward_data",
        [](const Tensor& g, const Tensor& y) { return softmax_backward.call(g, y, -1, at::kFloat); }, x, x.softmax(-1));
}

TEST(NeuronExecution, ACoreMadeAfterResetGetsNewKernels) {
  struct ResetAtEnd {  // later tests get LNC=1 cores even if an assertion returns early
    ~ResetAtEnd() { rt::Runtime::Get().Reset(); }
  } reset_at_end;
  auto f = compile(&testing::RmsNorm, kFullgraph);
  const Tensor x = at::randn({256, 512}, 0), w = at::randn({512}, 1);
  f(x.to(kNeuron), w.to(kNeuron));
  rt::Runtime::Get().Reset();
  rt::Runtime::Get().set_lnc(2);
  const size_t from = RecordCount();
  const Tensor y = f(x.to(kNeuron), w.to(kNeuron));
  EXPECT_EQ(ActivitySince(from).executions, 1);
  const auto& records = rt::Runtime::Get().core(0).records();
  const auto run = std::find_if(records.rbegin(), records.rend(), [](const auto& r) { return !r->is_copy(); });
  ASSERT_NE(run, records.rend());
  EXPECT_EQ((*run)->program_kernels.size(), 2u);
  EXPECT_EQ(f.core().regions().size(), 1u);  // no retrace: only the kernels are new
  EXPECT_LE(testing::MaxRelError(y, testing::RmsNorm(x, w)), 1e-5);
}

// An op without a lowering: an error naming it with fullgraph, else the
// op runs eagerly between two compiled regions.
TEST(NeuronExecution, OpWithoutLoweringBreaksTheGraph) {
  auto fn = [](const Tensor& x) { return (x * 2.0).sum({0}, true) + 1.0; };
  auto strict = compile(fn, kFullgraph);
  const Tensor x = Dev({4, 64}, 0);
  EXPECT_EQ(Error([&] { strict(x); }),
            "compile(fullgraph=True): cannot capture aten::sum.dim_IntList: reduces dim 0 of [4, 64]; only the "
            "innermost dim is compiled");
  auto lenient = compile(fn, CompileOptions{});
  lenient(x);
  const size_t from = RecordCount();
  const Tensor y = lenient(x);
  EXPECT_EQ(ActivitySince(from).executions, 3);  // region, eager sum, region
  EXPECT_EQ(lenient.core().regions().size(), 2u);
  EXPECT_LE(testing::MaxRelError(y, fn(x.cpu())), 2e-2);
}

// A host read of traced data: with fullgraph an error naming the copy; else
// a break, and since the function may branch on the value it is re-run on
// every call, its regions served from the cache while the value is the same.
TEST(NeuronExecution, HostReadBreaksTheGraph) {
  auto fn = [](const Tensor& x) {
    const double s = (x * x).sum({-1}, true).item<double>();
    return x * s;
  };
  const Tensor x = Dev({1, 32}, 0);
  auto strict = compile(fn, kFullgraph);
  EXPECT_EQ(Error([&] { strict(x); }),
            "compile(fullgraph=True): cannot capture aten::to.device: copies traced data to the host (a "
            "data-dependent host read such as .item() or .cpu())");
  compiler::ResetFrameIds();
  auto lenient = compile(fn, CompileOptions{});
  const Tensor y = lenient(x);
  lenient(x);
  EXPECT_EQ(lenient.core().traces(), 2);
  EXPECT_EQ(lenient.core().regions().size(), 2u);  // the second call hit both
  EXPECT_LE(testing::MaxRelError(y, fn(x.cpu())), 2e-2);
  lenient(Dev({1, 32}, 1));  // another value: the region after the read recompiles
  EXPECT_EQ(lenient.core().regions().back()->name(), "Torch-Compiled Region: 1/1");
}

}  // namespace
}  // namespace nsim
