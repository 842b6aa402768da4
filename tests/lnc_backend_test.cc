// The Neuron backend on a logical core of two physical cores (LNC=2, trn2):
// each op's kernel is split over both cores (one program per core, each its
// share of the rows), in one execution record naming both cores. Values are
// bit-identical to LNC=1 (every row is computed by the same instructions)
// and match the CPU reference; large ops take less device time.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "backend/factories.h"
#include "backend/ops.h"
#include "backend/neuron/neuron_test_util.h"
#include "benchmarks/rmsnorm/implementations.h"
#include "runtime/runtime.h"

namespace nsim {
namespace {

using at::Tensor;

struct LncRun {
  Tensor out;                      // on the CPU
  Picos device_time = 0;           // sum over the executions
  std::vector<std::vector<int>> cores;  // physical cores of each execution
};

// Runs `fn` on neuron:0 of a fresh trn2 runtime with `lnc` physical cores per device.
LncRun RunWithLnc(int lnc, const std::vector<Tensor>& inputs, const std::function<Tensor(const std::vector<Tensor>&)>& fn) {
  rt::Runtime::Get().Reset();
  rt::Runtime::Get().Configure("trn2");
  rt::Runtime::Get().set_lnc(lnc);
  std::vector<Tensor> dev;
  for (const Tensor& t : inputs) dev.push_back(t.to(at::Device("neuron:0")));
  rt::NeuronCoreDevice& core = rt::Runtime::Get().core(0);
  core.Synchronize();
  core.ClearRecords();
  const Tensor y = fn(dev);
  core.Synchronize();
  LncRun run;
  for (const rt::ExecutionHandle& r : core.records()) {
    if (r->is_copy()) continue;
    run.device_time += r->device_end - r->device_start;
    run.cores.push_back(r->cores);
  }
  run.out = y.cpu();
  rt::Runtime::Get().Reset();
  return run;
}

const std::vector<int> kBothCores = {0, 1};

TEST(LncBackend, EveryStudyOpAndCommonOpsSplitOverBothCores) {
  const Tensor x = at::randn({256, 512}, 3, at::TensorOptions().dtype(at::kBFloat16));
  const Tensor w = at::randn({512}, 4, at::TensorOptions().dtype(at::kBFloat16));
  const Tensor m = at::randn({512, 128}, 5, at::TensorOptions().dtype(at::kBFloat16));
  const std::vector<std::pair<std::string, std::function<Tensor(const std::vector<Tensor>&)>>> ops = {
      {"mul", [](const std::vector<Tensor>& v) { return v[0] * v[0]; }},
      {"mean", [](const std::vector<Tensor>& v) { return v[0].mean({-1}, true); }},
      {"add scalar", [](const std::vector<Tensor>& v) { return v[0] + 1e-6; }},
      {"rsqrt", [](const std::vector<Tensor>& v) { return at::rsqrt(at::abs(v[0])); }},
      {"mul broadcast", [](const std::vector<Tensor>& v) { return v[0] * v[1]; }},
      {"sum", [](const std::vector<Tensor>& v) { return v[0].sum({-1}); }},
      {"amax", [](const std::vector<Tensor>& v) { return at::amax(v[0], {-1}); }},
      {"softmax", [](const std::vector<Tensor>& v) { return at::softmax(v[0], -1); }},
      {"layer_norm", [](const std::vector<Tensor>& v) { return at::layer_norm(v[0], {512}, v[1], v[1], 1e-5); }},
      {"rms_norm", [](const std::vector<Tensor>& v) { return at::rms_norm(v[0], {512}, v[1], 1e-6); }},
      {"mm", [](const std::vector<Tensor>& v) { return at::mm(v[0], v[2]); }},
      {"silu", [](const std::vector<Tensor>& v) { return at::silu(v[0]); }},
  };
  for (const auto& [name, fn] : ops) {
    const LncRun one = RunWithLnc(1, {x, w, m}, fn), two = RunWithLnc(2, {x, w, m}, fn);
    EXPECT_EQ(at::testing::Values(two.out), at::testing::Values(one.out)) << name;
    neuron::testing::ExpectClose(two.out, fn({x, w, m}), name + " vs CPU", 2);
    for (const std::vector<int>& c : two.cores) EXPECT_EQ(c, kBothCores) << name;
  }
}

TEST(LncBackend, ThreeRmsNormImplementationsAreFasterOnTwoCores) {
  study::StudyOptions o;
  o.shape = {1024, 2048};
  const Tensor x = study::StudyInput(o), w = study::StudyWeight(o);
  for (size_t i = 0; i < 3; ++i) {
    // Fresh implementations per run: a compiled function keeps the kernels
    // it compiled for the device it first ran on.
    std::string name;
    auto fn = [&](const std::vector<Tensor>& v) {
      const study::Implementation impl = study::StudyImplementations(o)[i];
      name = impl.name;
      return impl.fn(v[0], v[1]);
    };
    const LncRun one = RunWithLnc(1, {x, w}, fn), two = RunWithLnc(2, {x, w}, fn);
    const study::Implementation impl{name, nullptr};
    EXPECT_EQ(at::testing::Values(two.out), at::testing::Values(one.out)) << impl.name;
    // Each core streams half the rows from the one stack both share (2 x 375
    // B/ns = its 750 B/ns): under the one-core time, above half of it.
    EXPECT_LT(two.device_time, one.device_time * 3 / 4) << impl.name << ": " << two.device_time << " vs "
                                                         << one.device_time;
    EXPECT_GT(two.device_time, one.device_time / 2) << impl.name;
  }
}

TEST(LncBackend, ProfileShowsEachPhysicalCoresLanes) {
  rt::Runtime::Get().Reset();
  rt::Runtime::Get().Configure("trn2");
  rt::Runtime::Get().set_lnc(2);
  study::StudyOptions o;
  o.out_dir = std::string(std::getenv("TEST_TMPDIR")) + "/lnc_profile";
  const study::Implementation impl = study::StudyImplementations(o)[1];  // rms_norm: one kernel per core
  const study::ImplResult r = study::RunImplementation(impl.name, impl.fn, o);
  std::map<std::string, Picos> busy;
  for (const prof::EngineStats& e : r.device_total.engines) busy[e.lane] = e.busy;
  for (const char* lane : {"core0/VectorE", "core0/ScalarE", "core1/VectorE", "core1/ScalarE"}) {
    EXPECT_GT(busy[lane], 0) << lane;
  }
  EXPECT_EQ(busy.count("VectorE"), 0u);  // no lane without its core
  EXPECT_EQ(busy["core0/VectorE"], busy["core1/VectorE"]);  // the same work: two rows each
  std::ifstream trace(r.out_dir + "/trace.json");
  const std::string text((std::istreambuf_iterator<char>(trace)), std::istreambuf_iterator<char>());
  for (const char* lane : {"\"core0/VectorE\"", "\"core1/VectorE\"", "\"core1/qSyncIO0\""}) {
    EXPECT_NE(text.find(lane), std::string::npos) << lane;
  }
  rt::Runtime::Get().Reset();
}

TEST(LncBackend, AnOpWithoutRowsRunsOnTheFirstCore) {
  // A full reduction to one value has no rows to share: core 0 alone.
  const Tensor x = at::randn({1, 4096}, 6, at::TensorOptions().dtype(at::kFloat));
  const LncRun two = RunWithLnc(2, {x}, [](const std::vector<Tensor>& v) { return v[0].sum({-1}); });
  ASSERT_EQ(two.cores.size(), 1u);
  EXPECT_EQ(two.cores[0], std::vector<int>{0});
}

}  // namespace
}  // namespace nsim
