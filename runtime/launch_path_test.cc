// Every kind of launch goes through the chip scheduler (sim/model/
// chip_scheduler.h) on the one host clock (SimClock): runtime executions and
// collectives, Chip::Launch (nsim run --grid, the NKI SPMD launch), the
// chip's ring all-reduce and Device::Execute (nsim run). Mixed, they continue
// one time line: each starts at the host's time and the host waits for the
// synchronous ones, so times never reset or go backwards; and each kind runs
// the race check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/test_util.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/all_reduce.h"
#include "sim/model/chip.h"
#include "sim/model/device.h"
#include "sim/model/timing_run.h"

namespace nsim {
namespace rt {
namespace {

using ::testing::HasSubstr;
using testing::ErrorOf;
using testing::Now;

using LaunchPathTest = testing::FreshRuntimeTest;

// VectorE reads a tile while the DMA filling it is still in flight.
constexpr const char* kRacy = R"(kernel racy
tensor a  hbm  f32 [128, 512] init=ones
tensor ta sbuf f32 [128, 512]
tensor tc sbuf f32 [128, 512]
sync:   dma_copy ta, a
vector: tensor_copy tc, ta
)";

// Each program loads its own 4 rows.
constexpr const char* kLoadRows = R"(kernel rows
tensor x hbm  f32 [8, 8] init=ones
tensor t sbuf f32 [4, 8]
sync: dma_copy t, x[program_id * 4:(program_id + 1) * 4]
)";

std::vector<std::shared_ptr<const LoadedKernel>> Programs(const Chip& chip, const std::string& text, int n) {
  std::vector<std::shared_ptr<const LoadedKernel>> out;
  for (const Kernel& k : ParseGrid(text, "grid.nk", n)) out.push_back(chip.Load(k));
  return out;
}

// A runtime execution of the scale kernel on core 0, waited for.
ExecutionHandle RuntimeExecution(NeuronCoreDevice& nc) {
  const uint64_t x = nc.Allocate(testing::kScaleTensorBytes), out = nc.Allocate(testing::kScaleTensorBytes);
  const ExecutionHandle h = nc.ExecuteAsync(nc.LoadKernel(testing::ScaleKernel()), {{"x", x}, {"out", out}});
  nc.Wait(h);
  return h;
}

TEST_F(LaunchPathTest, MixedLaunchesContinueOneClock) {
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  Chip& chip = nc.chip();
  const ExecutionHandle first = RuntimeExecution(nc);
  EXPECT_EQ(Now(), first->device_end);

  // A grid launch on the runtime's chip starts at the host's time, after the
  // runtime's work, and the host waits for it.
  Picos before = Now();
  const GridResult grid = chip.Launch(Programs(chip, kLoadRows, 2));
  EXPECT_EQ(grid.start, before);
  EXPECT_EQ(Now(), grid.start + grid.device_time);

  // The chip's ring all-reduce: its steps back to back from the host's time.
  before = Now();
  const int64_t elements = 128 * 64 * 2;
  const AllReduceResult ring =
      RingAllReduce(chip, {chip.CoreMemoryBase(2), chip.CoreMemoryBase(3)}, elements, DType::kF32);
  EXPECT_EQ(ring.start, before);
  EXPECT_EQ(Now(), ring.start + ring.device_time);

  // A Device (a one-core chip of its own): also from the host's time.
  before = Now();
  Device device(LoadHardwareConfig("trn2"));
  const ExecutionResult alone = device.Execute(testing::ScaleKernel());
  EXPECT_EQ(Now(), before + alone.device_time);
  before = Now();
  const ExecutionResult timed = ExecuteTimingOnly(device.config(), *device.Load(testing::ScaleKernel()));
  EXPECT_EQ(timed.device_time, alone.device_time);
  EXPECT_EQ(Now(), before + timed.device_time);

  // The runtime continues after all of them: never from an earlier time.
  before = Now();
  const ExecutionHandle last = RuntimeExecution(nc);
  EXPECT_GE(last->device_start, before);
  EXPECT_EQ(last->device_end - last->device_start, first->device_end - first->device_start);
  EXPECT_EQ(Now(), last->device_end);
}

TEST_F(LaunchPathTest, AGridLaunchQueuesBehindTheRuntimesWorkOnItsCores) {
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  const uint64_t x = nc.Allocate(testing::kScaleTensorBytes), out = nc.Allocate(testing::kScaleTensorBytes);
  const ExecutionHandle h = nc.ExecuteAsync(nc.LoadKernel(testing::ScaleKernel()), {{"x", x}, {"out", out}});
  // Not waited for: the launch on core 0 starts when the execution frees it.
  const GridResult grid = nc.chip().Launch({nc.chip().Load(testing::ScaleKernel())});
  EXPECT_TRUE(h->completed);
  EXPECT_EQ(grid.start, h->device_end);
  EXPECT_EQ(Now(), grid.start + grid.device_time);
}

TEST_F(LaunchPathTest, TheRaceCheckRunsOnEveryKindOfLaunch) {
  const Kernel racy = ParseKernel(kRacy, "racy.nk");
  // nsim run: Device::Execute.
  Device device(LoadHardwareConfig("trn2"));
  EXPECT_THAT(ErrorOf([&] { device.Execute(racy); }), HasSubstr("race in kernel 'racy'"));
  // nsim run --grid and the NKI SPMD launch: Chip::Launch.
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  EXPECT_THAT(ErrorOf([&] { nc.chip().Launch(Programs(nc.chip(), kRacy, 2)); }), HasSubstr("race in kernel 'racy'"));
  // The runtime (torch_nsim, nsim.nki on the runtime).
  const uint64_t a = nc.Allocate(128 * 512 * 4);
  const ExecutionHandle h = nc.ExecuteAsync(nc.LoadKernel(racy), {{"a", a}});
  EXPECT_THAT(ErrorOf([&] { nc.Wait(h); }), HasSubstr("race in kernel 'racy'"));
  // Allowed, a race is a warning on each path.
  device.set_allow_races(true);
  EXPECT_THAT(device.Execute(racy).warnings, ::testing::Contains(HasSubstr("race in kernel 'racy'")));
  GridOptions allowed;
  allowed.allow_races = true;
  const GridResult grid = nc.chip().Run(Programs(nc.chip(), kRacy, 2), {}, {}, allowed);
  for (const ExecutionResult& p : grid.programs) EXPECT_THAT(p.warnings, ::testing::Contains(HasSubstr("race")));
  EXPECT_THAT(ExecuteTimingOnly(device.config(), *device.Load(racy)).warnings,
              ::testing::Contains(HasSubstr("race in kernel 'racy'")));
}

// Two HBM tensors used at once by different engines (a load from `a`, a
// store to `b`) are distinct memory: the timing-only path places them apart,
// as Device::Execute does, so it reports no race (it placed every tensor at
// address 0 before, and every such pair overlapped).
TEST_F(LaunchPathTest, TimingOnlyPlacesTensorsApart) {
  const Kernel k = ParseKernel(R"(kernel apart
tensor a  hbm  f32 [128, 512] init=ones
tensor b  hbm  f32 [128, 512]
tensor ta sbuf f32 [128, 512]
tensor tb sbuf f32 [128, 512]
sync:   dma_copy ta, a
gpsimd: dma_copy b, tb
)",
                               "apart.nk");
  Device device(LoadHardwareConfig("trn2"));
  const ExecutionResult timed = ExecuteTimingOnly(device.config(), *device.Load(k));
  EXPECT_THAT(timed.warnings, ::testing::IsEmpty());
  EXPECT_EQ(timed.device_time, device.Execute(k).device_time);
}

// Each Device execution holds one core model for its run only: more devices
// than the process's 16 core models can live and run at once.
TEST_F(LaunchPathTest, AnyNumberOfDevicesRun) {
  std::vector<std::unique_ptr<Device>> devices;
  for (int i = 0; i < 20; ++i) devices.push_back(std::make_unique<Device>(LoadHardwareConfig("trn2")));
  const Picos first = devices.front()->Execute(testing::ScaleKernel()).device_time;
  for (auto& d : devices) EXPECT_EQ(d->Execute(testing::ScaleKernel()).device_time, first);
}

}  // namespace
}  // namespace rt
}  // namespace nsim
