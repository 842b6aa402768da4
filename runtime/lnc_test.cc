// Logical NeuronCores: neuron:N groups lnc() physical cores of a chip; an
// SPMD kernel runs one program per physical core, in one record.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
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

TEST_F(LncTest, TheModelPoolRunsOutWithAClearError) {
  // Each config content gets a chip of its own; the one simulation holds 16
  // core models, which a chip takes while it has work in flight: two trn2
  // chips of 8 at once.
  NeuronCoreDevice& a = Runtime::Get().ConfigureCore(0, "trn2", {"host.runtime_submit=1us"});
  NeuronCoreDevice& b = Runtime::Get().ConfigureCore(1, "trn2", {"host.runtime_submit=2us"});
  NeuronCoreDevice& c = Runtime::Get().ConfigureCore(2, "trn2", {"host.runtime_submit=3us"});
  auto submit = [](NeuronCoreDevice& nc) {
    const uint64_t x = nc.Allocate(testing::kScaleTensorBytes), out = nc.Allocate(testing::kScaleTensorBytes);
    return nc.ExecuteAsync(nc.LoadKernel(testing::ScaleKernel()), {{"x", x}, {"out", out}});
  };
  submit(a);
  submit(b);
  EXPECT_THAT(ErrorOf([&] { submit(c); }), HasSubstr("no room for another 'trn2' chip (8 cores, 4 HBM stacks)"));
  a.Synchronize();  // a's chip is idle: its models go back to the pool
  EXPECT_NO_THROW(c.Wait(submit(c)));
}

// sim/kernel/examples/spmd_scale.nk: program i of N doubles rows 8i..8i+7
// of a bf16 [64, 2048] x into out.
Kernel SpmdScale() { return LoadKernelFile("sim/kernel/examples/spmd_scale.nk"); }
constexpr int64_t kRowElements = 2048;
constexpr uint64_t kBytes = 64 * kRowElements * 2;

// bf16 of small integers is exact: the top half of the float's bits.
uint16_t Bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return static_cast<uint16_t>(bits >> 16);
}

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

// Runs spmd_scale with x[i] = i % 64 and returns how many leading rows of
// out hold 2 * x (the rest must still be 0).
int DoubledRows(NeuronCoreDevice& nc, ExecutionHandle* handle) {
  const uint64_t x = nc.Allocate(kBytes), out = nc.Allocate(kBytes);
  std::vector<uint16_t> data(kBytes / 2);
  for (size_t i = 0; i < data.size(); ++i) data[i] = Bf16(static_cast<float>(i % 64));
  nc.CopyToDevice(x, data.data(), kBytes);
  *handle = nc.ExecuteAsync(nc.LoadKernel(SpmdScale()), {{"x", x}, {"out", out}});
  std::vector<uint16_t> back(kBytes / 2);
  nc.CopyFromDevice(back.data(), out, kBytes);
  int rows = 0;
  for (int r = 0; r < 64; ++r) {
    bool doubled = true, zero = true;
    for (int64_t c = 0; c < kRowElements; ++c) {
      const size_t i = static_cast<size_t>(r * kRowElements + c);
      doubled = doubled && back[i] == Bf16(2.0f * static_cast<float>(i % 64));
      zero = zero && back[i] == 0;
    }
    if (doubled && rows == r) ++rows;
    if (!doubled && !zero) ADD_FAILURE() << "row " << r << " is neither doubled nor untouched";
  }
  return rows;
}

TEST_F(LncTest, SpmdKernelRunsOneProgramPerPhysicalCore) {
  Runtime::Get().set_lnc(2);
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  ExecutionHandle h;
  EXPECT_EQ(DoubledRows(nc, &h), 16);  // programs 0 and 1 of 2
  EXPECT_THAT(h->cores, ElementsAre(0, 1));
  ASSERT_EQ(h->programs.size(), 2u);
  EXPECT_EQ(h->result, h->programs[0]);
  EXPECT_EQ(h->device_end - h->device_start,
            std::max(h->programs[0]->device_time, h->programs[1]->device_time));
}

TEST_F(LncTest, SpmdKernelOnLnc1RunsOnce) {
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  ExecutionHandle h;
  EXPECT_EQ(DoubledRows(nc, &h), 8);  // program 0 of 1
  EXPECT_THAT(h->cores, ElementsAre(0));
}

TEST_F(LncTest, ExplicitProgramsAndTheirCount) {
  Runtime::Get().set_lnc(2);
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  const uint64_t x = nc.Allocate(kBytes), out = nc.Allocate(kBytes);
  std::vector<KernelRef> programs;
  for (const Kernel& k : ParseGrid(ReadKernelFile("sim/kernel/examples/spmd_scale.nk"), "spmd_scale.nk", 2)) {
    programs.push_back(nc.LoadKernel(k));
  }
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
