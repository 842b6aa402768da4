#include "runtime/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "runtime/test_util.h"

namespace nsim {
namespace rt {
namespace {

using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::Iota;
using testing::kScaleTensorBytes;
using testing::Now;
using testing::ScaleKernel;

using RuntimeTest = testing::FreshRuntimeTest;

// Runs out = 2 * x on `nc` and returns its record, after checking the bytes.
ExecutionHandle RunScale(NeuronCoreDevice& nc) {
  const uint64_t x = nc.Allocate(kScaleTensorBytes), out = nc.Allocate(kScaleTensorBytes);
  std::vector<float> data = Iota(32);
  nc.CopyToDevice(x, data.data(), kScaleTensorBytes);
  const ExecutionHandle h = nc.ExecuteAsync(nc.LoadKernel(ScaleKernel(2)), {{"x", x}, {"out", out}});
  nc.CopyFromDevice(data.data(), out, kScaleTensorBytes);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(data[i], 2.0f * i) << nc.name() << " element " << i;
  return h;
}

TEST_F(RuntimeTest, CoresAreCreatedOnFirstUseWithTrn2) {
  EXPECT_FALSE(Runtime::Get().HasCore(0));
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  EXPECT_TRUE(Runtime::Get().HasCore(0));
  EXPECT_EQ(&Runtime::Get().core(0), &nc);
  EXPECT_EQ(nc.index(), 0);
  EXPECT_EQ(nc.name(), "neuron:0");
  EXPECT_EQ(nc.config().name, "trn2");
  EXPECT_EQ(nc.config().generation, "NeuronCore-v3");
}

TEST_F(RuntimeTest, BadCoreIndex) {
  EXPECT_THAT(ErrorOf([] { Runtime::Get().core(-1); }),
              HasSubstr("neuron:-1: no such NeuronCore (valid indices are 0..127)"));
  EXPECT_THAT(ErrorOf([] { Runtime::Get().core(Runtime::kMaxCores); }),
              HasSubstr("neuron:128: no such NeuronCore"));
  EXPECT_THAT(ErrorOf([] { Runtime::Get().ConfigureCore(500, "trn1"); }),
              HasSubstr("neuron:500: no such NeuronCore"));
}

TEST_F(RuntimeTest, ConfigureChoosesThePartOfNewCores) {
  NeuronCoreDevice& nc0 = Runtime::Get().core(0);
  Runtime::Get().Configure("trn1", {"host.runtime_submit=3us"});
  NeuronCoreDevice& nc1 = Runtime::Get().core(1);
  EXPECT_EQ(nc0.config().name, "trn2");  // existing cores keep their part
  EXPECT_EQ(nc1.config().name, "trn1");
  EXPECT_EQ(nc1.config().host.runtime_submit_ps, 3000000);
  EXPECT_EQ(Runtime::Get().default_config().name, "trn1");
  EXPECT_THAT(ErrorOf([] { Runtime::Get().Configure("trn9"); }), HasSubstr("trn9"));
  EXPECT_THAT(ErrorOf([] { Runtime::Get().Configure("trn2", {"chip.host_link_bandwidth=0B/ns"}); }),
              HasSubstr("impossible value"));
}

TEST_F(RuntimeTest, ConfigureCoreOnlyBeforeFirstUse) {
  Runtime::Get().core(0);
  EXPECT_THAT(ErrorOf([] { Runtime::Get().ConfigureCore(0, "trn1"); }),
              HasSubstr("neuron:0 already exists with config 'trn2'; configure a core before its first use"));
}

TEST_F(RuntimeTest, Trn1AndTrn2CoresInOneProcess) {
  NeuronCoreDevice& trn2 = Runtime::Get().core(0);
  NeuronCoreDevice& trn1 = Runtime::Get().ConfigureCore(1, "trn1");
  EXPECT_EQ(trn1.config().generation, "NeuronCore-v2");
  const ExecutionHandle on_trn2 = RunScale(trn2);
  const ExecutionHandle on_trn1 = RunScale(trn1);
  // The same kernel, costed by each part's own clocks and DMA.
  EXPECT_EQ(on_trn1->kernel_hash, on_trn2->kernel_hash);
  EXPECT_NE(on_trn1->result->device_time, on_trn2->result->device_time);
  EXPECT_EQ(on_trn1->kernel->config_name, "trn1");
  EXPECT_EQ(trn1.memory_stats().capacity, (16ull << 30) - NeuronCoreDevice::kFirstAddress);
  // Each core has its own memory, kernel cache and streams: the trn1 core
  // loaded the kernel itself, and its work did not queue behind the trn2
  // core's (it started as soon as it was submitted).
  EXPECT_EQ(trn1.kernel_cache_stats().misses, 1);
  EXPECT_EQ(on_trn1->device_start, on_trn1->submit_end);
  // A kernel loaded on one core cannot run on another.
  const KernelRef k = trn1.LoadKernel(ScaleKernel(2));
  const uint64_t x = trn2.Allocate(kScaleTensorBytes);
  EXPECT_THAT(
      ErrorOf([&] {
        trn2.ExecuteAsync(k, {{"x", x}});
      }),
      HasSubstr(
          "neuron:0: ExecuteAsync of kernel 'scale', which was loaded on neuron:1; load it on this core "
          "with LoadKernel"));
  // Wall time is summed over the cores.
  EXPECT_EQ(Runtime::Get().wall_time().executions, 2);
}

TEST_F(RuntimeTest, ResetStartsAFreshProcess) {
  Runtime::Get().Configure("trn1");
  Runtime::Get().core(0).Allocate(64);
  EXPECT_GT(Now(), 0);
  Runtime::Get().Reset();
  EXPECT_EQ(Now(), 0);
  EXPECT_FALSE(Runtime::Get().HasCore(0));
  EXPECT_EQ(Runtime::Get().core(0).config().name, "trn2");
}

}  // namespace
}  // namespace rt
}  // namespace nsim
