// Logical NeuronCores: neuron:N groups lnc() physical cores of a chip; an
// SPMD kernel runs one program per physical core, in one record.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "runtime/test_util.h"
#include "sim/kernel/parser.h"

namespace nsim {
namespace rt {
namespace {

using testing::ErrorOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using LncTest = testing::FreshRuntimeTest;

// Each program doubles its own 4 rows of x: program_id picks the rows.
const char* kSpmdScale = R"(kernel spmd_scale
tensor x   hbm  f32 [8, 8]
tensor out hbm  f32 [8, 8]
tensor xt  sbuf f32 [4, 8]
tensor yt  sbuf f32 [4, 8]
semaphore loaded
semaphore done
sync:   dma_copy xt, x[program_id * 4:(program_id + 1) * 4] signal=loaded
vector: tensor_scalar yt, xt op0=multiply scalar0=2 wait=loaded>=1 signal=done
sync:   dma_copy out[program_id * 4:program_id * 4 + 4], yt wait=done>=1
)";
constexpr uint64_t kBytes = 8 * 8 * sizeof(float);

TEST_F(LncTest, DefaultIsOnePhysicalCorePerDevice) {
  EXPECT_EQ(Runtime::Get().lnc(), 1);
  NeuronCoreDevice& nc0 = Runtime::Get().core(0);
  NeuronCoreDevice& nc1 = Runtime::Get().core(1);
  EXPECT_EQ(nc0.lnc(), 1);
  EXPECT_THAT(nc0.physical_cores(), ElementsAre(0));
  EXPECT_THAT(nc1.physical_cores(), ElementsAre(1));
  EXPECT_EQ(&nc0.chip(), &nc1.chip());  // one trn2 chip of 8 cores
  // neuron:1's memory is core 1's home region: 12 GiB above core 0's (trn2: 24 GiB stack / 2 cores).
  EXPECT_EQ(nc1.memory_base(), nc0.memory_base() + (uint64_t{12} << 30));
}

TEST_F(LncTest, Lnc2GroupsTwoCoresAndTheirMemory) {
  Runtime::Get().set_lnc(2);
  EXPECT_EQ(Runtime::Get().lnc(), 2);
  NeuronCoreDevice& nc0 = Runtime::Get().core(0);
  NeuronCoreDevice& nc1 = Runtime::Get().core(1);
  EXPECT_THAT(nc0.physical_cores(), ElementsAre(0, 1));
  EXPECT_THAT(nc1.physical_cores(), ElementsAre(2, 3));
  EXPECT_EQ(nc0.memory_bytes(), uint64_t{24} << 30);  // one trn2 HBM stack
  EXPECT_EQ(nc1.memory_base(), uint64_t{24} << 30);
  const uint64_t a = nc1.Allocate(kBytes);
  EXPECT_GE(a, nc1.memory_base());
  EXPECT_LT(a, nc1.memory_base() + nc1.memory_bytes());
}

TEST_F(LncTest, DefaultLncComesFromTheConfig) {
  Runtime::Get().set_lnc(0);
  EXPECT_EQ(Runtime::Get().lnc(), 2);  // trn2 chip.default_lnc
  Runtime::Get().Configure("trn1");
  Runtime::Get().set_lnc(0);
  EXPECT_EQ(Runtime::Get().lnc(), 1);
}

TEST_F(LncTest, BadLnc) {
  EXPECT_THAT(ErrorOf([] { Runtime::Get().set_lnc(3); }), HasSubstr("set_lnc(3): a logical core must group a divisor of the 8"));
  EXPECT_THAT(ErrorOf([] { Runtime::Get().set_lnc(-1); }), HasSubstr("set_lnc(-1)"));
  Runtime::Get().set_lnc(4);
  EXPECT_THAT(ErrorOf([] { Runtime::Get().ConfigureCore(0, "trn1"); }),
              HasSubstr("LNC 4 does not divide the 2 physical cores of a 'trn1' chip"));
}

TEST_F(LncTest, ChipsAreMadeWhenOneIsFull) {
  Runtime::Get().set_lnc(4);
  NeuronCoreDevice& nc0 = Runtime::Get().core(0);
  NeuronCoreDevice& nc1 = Runtime::Get().core(1);
  NeuronCoreDevice& nc2 = Runtime::Get().core(2);
  EXPECT_EQ(&nc0.chip(), &nc1.chip());
  EXPECT_NE(&nc0.chip(), &nc2.chip());
  EXPECT_THAT(nc2.physical_cores(), ElementsAre(0, 1, 2, 3));
}

std::vector<float> RunSpmd(NeuronCoreDevice& nc, ExecutionHandle* handle) {
  const uint64_t x = nc.Allocate(kBytes), out = nc.Allocate(kBytes);
  std::vector<float> data = testing::Iota(64);
  nc.CopyToDevice(x, data.data(), kBytes);
  *handle = nc.ExecuteAsync(nc.LoadKernel(ParseKernel(kSpmdScale, "spmd.nk")), {{"x", x}, {"out", out}});
  nc.CopyFromDevice(data.data(), out, kBytes);
  return data;
}

TEST_F(LncTest, SpmdKernelRunsOneProgramPerPhysicalCore) {
  Runtime::Get().set_lnc(2);
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  ExecutionHandle h;
  const std::vector<float> out = RunSpmd(nc, &h);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], 2.0f * i) << "element " << i;
  EXPECT_THAT(h->cores, ElementsAre(0, 1));
  ASSERT_EQ(h->programs.size(), 2u);
  EXPECT_EQ(h->result, h->programs[0]);
  EXPECT_EQ(h->device_end - h->device_start,
            std::max(h->programs[0]->device_time, h->programs[1]->device_time));
}

TEST_F(LncTest, SpmdKernelOnLnc1RunsOnce) {
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  ExecutionHandle h;
  const std::vector<float> out = RunSpmd(nc, &h);
  // program_id 0 of 1: only the first 4 rows are doubled.
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[i], 2.0f * i) << "element " << i;
  EXPECT_THAT(h->cores, ElementsAre(0));
}

TEST_F(LncTest, ExplicitProgramsAndTheirCount) {
  Runtime::Get().set_lnc(2);
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  const uint64_t x = nc.Allocate(kBytes), out = nc.Allocate(kBytes);
  std::vector<KernelRef> programs;
  for (const Kernel& k : ParseGrid(kSpmdScale, "spmd.nk", 2)) programs.push_back(nc.LoadKernel(k));
  const ExecutionHandle h = nc.ExecuteAsync(programs, {{"x", x}, {"out", out}});
  EXPECT_THAT(h->cores, ElementsAre(0, 1));
  const ExecutionHandle one = nc.ExecuteAsync(std::vector<KernelRef>{programs[0]}, {{"x", x}, {"out", out}});
  EXPECT_THAT(one->cores, ElementsAre(0));
  programs.push_back(programs[0]);
  EXPECT_THAT(ErrorOf([&] { nc.ExecuteAsync(programs, {{"x", x}, {"out", out}}); }),
              HasSubstr("neuron:0: ExecuteAsync of 3 programs; this logical core has 2 physical cores"));
}

}  // namespace
}  // namespace rt
}  // namespace nsim
