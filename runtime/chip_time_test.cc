// One time base: kernels, host copies and core-to-core copies are simulated
// together on the chip, lazily, while the host's clock runs on. Expected
// times are derived from the trn2 config in the comments (host_link 16 B/ns,
// host_link_latency 2us, dma.hbm_bytes_per_ns = 750 B/ns stack / 2 cores =
// 375 B/ns, 16 DMA engines of 23 B/ns).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/test_util.h"
#include "sim/kernel/parser.h"

namespace nsim {
namespace rt {
namespace {

using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::Now;
using testing::Us;

using ChipTimeTest = testing::FreshRuntimeTest;

constexpr uint64_t kMiB = 1 << 20;

Picos Duration(const ExecutionHandle& h) { return h->device_end - h->device_start; }

// Streams 8 MiB from HBM into SBUF: one dma_copy over 128 partitions, all 16
// DMA engines busy (16 x 23 B/ns = 368 B/ns, under the core's 375 B/ns).
Kernel StreamKernel() {
  return ParseKernel(
      "kernel stream_in\n"
      "tensor x hbm  f32 [128, 16384]\n"
      "tensor t sbuf f32 [128, 16384]\n"
      "sync: dma_copy t, x\n",
      "stream.nk");
}
constexpr uint64_t kStreamBytes = 128 * 16384 * 4;

TEST_F(ChipTimeTest, ACopyAloneTakesTheLinkFormula) {
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  const uint64_t buf = nc.Allocate(kMiB);
  std::vector<uint8_t> data(kMiB, 7);
  // 2us + 1048576 B / 16 B/ns = 2us + 65536ns.
  const ExecutionHandle w = nc.CopyToDevice(buf, data.data(), kMiB);
  nc.Wait(w);
  EXPECT_EQ(Duration(w), Us(2) + 65536 * kPicosPerNano);
  // A duration that is not a whole ps: 3 B / 16 B/ns = 187.5 ps, rounded as
  // the formula rounds (NanosToPicos): 188 ps.
  const ExecutionHandle small = nc.CopyToDevice(buf, data.data(), 3);
  nc.Wait(small);
  EXPECT_EQ(Duration(small), Us(2) + NanosToPicos(3.0 / 16.0));
}

TEST_F(ChipTimeTest, TwoCopiesOnTwoStreamsShareTheLink) {
  NeuronCoreDevice& nc = Runtime::Get().ConfigureCore(0, "trn2", {"host.copy_setup=100ns"});
  const uint64_t a = nc.Allocate(kMiB), b = nc.Allocate(kMiB);
  const int s1 = nc.CreateStream();
  std::vector<uint8_t> data(kMiB, 1);
  const ExecutionHandle first = nc.CopyToDevice(a, data.data(), kMiB, 0);
  const ExecutionHandle second = nc.CopyToDevice(b, data.data(), kMiB, s1);
  nc.Synchronize();
  // The second starts 100ns (host.copy_setup) after the first. After the 2us
  // latency, the first moves 100ns x 16 B/ns = 1600 B alone, then both share
  // the link at 8 B/ns: the first's 1046976 B left take 130872ns, the
  // second's 1600 B left then 100ns alone. Each: 2us + 130972ns, not 2us + 65536ns.
  EXPECT_EQ(second->device_start, first->device_start + 100 * kPicosPerNano);
  EXPECT_EQ(Duration(first), Us(2) + 130972 * kPicosPerNano);
  EXPECT_EQ(Duration(second), Us(2) + 130972 * kPicosPerNano);
}

// A host copy into a core's memory is DMA traffic of that core on its stack:
// with a streaming kernel, its 16 engines and the copy share the core's
// 375 B/ns (375 / 17 = 22.06 B/ns each): the kernel's engines slow from
// 23 B/ns, and a copy faster than that share (here a 100 B/ns link) too.
TEST_F(ChipTimeTest, ACopyOverlappingAStreamingKernelSlowsBoth) {
  const std::vector<std::string> fast_link = {"chip.host_link_bandwidth=100B/ns"};
  auto run = [&](bool kernel, bool copy) {
    Runtime::Get().Reset();
    NeuronCoreDevice& nc = Runtime::Get().ConfigureCore(0, "trn2", fast_link);
    const uint64_t x = nc.Allocate(kStreamBytes), buf = nc.Allocate(4 * kMiB);
    const int s1 = nc.CreateStream();
    std::vector<uint8_t> data(4 * kMiB, 3);
    const KernelRef k = nc.LoadKernel(StreamKernel());
    ExecutionHandle hk, hc;
    if (kernel) hk = nc.ExecuteAsync(k, {{"x", x}});
    if (copy) hc = nc.CopyToDevice(buf, data.data(), 4 * kMiB, s1);
    nc.Synchronize();
    return std::make_pair(hk ? Duration(hk) : 0, hc ? Duration(hc) : 0);
  };
  const Picos kernel_alone = run(true, false).first;
  const Picos copy_alone = run(false, true).second;
  // 2us + 4 MiB / 100 B/ns.
  EXPECT_EQ(copy_alone, Us(2) + NanosToPicos(4.0 * kMiB / 100.0));
  const auto [kernel_shared, copy_shared] = run(true, true);
  EXPECT_GT(kernel_shared, kernel_alone);
  EXPECT_GT(copy_shared, copy_alone);
}

TEST_F(ChipTimeTest, AHostOpBetweenSubmissionsOverlapsDeviceWork) {
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  const uint64_t x = nc.Allocate(kStreamBytes);
  const KernelRef k = nc.LoadKernel(StreamKernel());
  const ExecutionHandle h = nc.ExecuteAsync(k, {{"x", x}});
  // The framework's host work (say 5us of Python) advances the host's time
  // while the kernel (~23us: 8 MiB at 368 B/ns) runs on the chip.
  const Picos host_op = Us(5);
  SimClock::Get().Advance(host_op);
  const ExecutionHandle h2 = nc.ExecuteAsync(k, {{"x", x}});
  nc.Synchronize();
  EXPECT_EQ(h->device_start, h->submit_end);  // not delayed by the host op
  EXPECT_GT(Duration(h), host_op + Us(6));     // the second submission came while it ran...
  EXPECT_EQ(h2->device_start, h->device_end);  // ...so it queued behind it
  EXPECT_EQ(Now(), h2->device_end);            // the host's wait ends with the device's work
  EXPECT_EQ(Duration(h2), Duration(h));
}

TEST_F(ChipTimeTest, CoreToCoreCopyMovesTheBytesAtTheDmaShareOfEachStack) {
  // lnc 1: neuron:0 = core 0 (stack 0), neuron:1 = core 1 (stack 0), neuron:2 = core 2 (stack 1).
  NeuronCoreDevice& nc0 = Runtime::Get().core(0);
  NeuronCoreDevice& nc1 = Runtime::Get().core(1);
  NeuronCoreDevice& nc2 = Runtime::Get().core(2);
  const uint64_t src = nc0.Allocate(kMiB), own = nc0.Allocate(kMiB);
  const uint64_t near = nc1.Allocate(kMiB), far = nc2.Allocate(kMiB);
  std::vector<uint8_t> data(kMiB);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 13 + 1);
  nc0.CopyToDevice(src, data.data(), kMiB);
  nc0.Synchronize();
  const Picos latency = nc0.config().dma.start_latency_ps;
  // Read on core 0's share of its stack, write on the destination core's, in
  // parallel, each at 375 B/ns: start_latency + 1048576 / 375 ns.
  const Picos expected = latency + NanosToPicos(1048576.0 / 375.0);
  const ExecutionHandle to_far = nc0.CopyToCore(nc2, far, src, kMiB);
  nc0.Wait(to_far);
  EXPECT_EQ(Duration(to_far), expected);
  EXPECT_EQ(to_far->api, std::string("nrta_tensor_copy"));
  EXPECT_EQ(to_far->peer_core, 2);
  // Two cores of one stack: 2 x 375 B/ns = the stack's 750 B/ns, the same time.
  const ExecutionHandle to_near = nc0.CopyToCore(nc1, near, src, kMiB);
  nc0.Wait(to_near);
  EXPECT_EQ(Duration(to_near), expected);
  // Within one core: every byte crosses its 375 B/ns twice.
  const ExecutionHandle to_own = nc0.CopyToCore(nc0, own, src, kMiB);
  nc0.Wait(to_own);
  EXPECT_EQ(Duration(to_own), latency + NanosToPicos(2.0 * 1048576.0 / 375.0));
  for (auto [nc, addr] : {std::make_pair(&nc2, far), std::make_pair(&nc1, near), std::make_pair(&nc0, own)}) {
    std::vector<uint8_t> back(kMiB);
    nc->CopyFromDevice(back.data(), addr, kMiB);
    EXPECT_EQ(back, data) << nc->name();
  }
}

TEST_F(ChipTimeTest, CopyToCoreErrors) {
  NeuronCoreDevice& nc0 = Runtime::Get().core(0);
  NeuronCoreDevice& nc1 = Runtime::Get().core(1);
  const uint64_t a = nc0.Allocate(4096), b = nc1.Allocate(4096);
  EXPECT_THAT(ErrorOf([&] { nc0.CopyToCore(nc1, b, a, 4096, 3); }), HasSubstr("CopyToCore on unknown stream 3"));
  EXPECT_THAT(ErrorOf([&] { nc0.CopyToCore(nc1, b, a, 8192); }),
              HasSubstr("neuron:1: CopyToCore from neuron:0 of 8192 bytes to"));
  EXPECT_THAT(ErrorOf([&] { nc0.CopyToCore(nc1, a, a, 16); }), HasSubstr("the address is not inside a live allocation"));
  NeuronCoreDevice& other = Runtime::Get().ConfigureCore(5, "trn1");
  const uint64_t c = other.Allocate(4096);
  EXPECT_THAT(ErrorOf([&] { nc0.CopyToCore(other, c, a, 16); }), HasSubstr("which is on another chip"));
}

// A deadlocked kernel fails at the wait that finds it, naming it; the core
// and its stream stay usable.
TEST_F(ChipTimeTest, AModelErrorSurfacesAtTheWaitAndTheRuntimeStaysUsable) {
  NeuronCoreDevice& nc = Runtime::Get().core(0);
  const Kernel stuck = ParseKernel(
      "kernel stuck\n"
      "tensor t sbuf f32 [4, 8]\n"
      "semaphore never\n"
      "vector: memset t value=0 wait=never>=1\n",
      "stuck.nk");
  const ExecutionHandle bad = nc.ExecuteAsync(nc.LoadKernel(stuck), {});
  EXPECT_THAT(ErrorOf([&] { nc.Synchronize(); }),
              ::testing::AllOf(HasSubstr("neuron:0: kernel 'stuck': deadlock in kernel 'stuck'"),
                               HasSubstr("stuck at instruction")));
  EXPECT_FALSE(bad->completed);
  EXPECT_TRUE(nc.records().empty());  // a failed item is not kept
  // The core works afterwards.
  const uint64_t x = nc.Allocate(testing::kScaleTensorBytes), out = nc.Allocate(testing::kScaleTensorBytes);
  std::vector<float> data = testing::Iota(32);
  nc.CopyToDevice(x, data.data(), testing::kScaleTensorBytes);
  nc.ExecuteAsync(nc.LoadKernel(testing::ScaleKernel(3)), {{"x", x}, {"out", out}});
  nc.CopyFromDevice(data.data(), out, testing::kScaleTensorBytes);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(data[i], 3.0f * i);
}

// Same program -> the same device times, bit for bit, with 8 cores and 2
// streams each, kernels and copies in flight together.
TEST_F(ChipTimeTest, ManyCoresAndStreamsAreDeterministic) {
  auto run = [] {
    Runtime::Get().Reset();
    std::vector<Picos> times;
    std::vector<NeuronCoreDevice*> cores;
    std::vector<uint64_t> xs, outs;
    std::vector<float> data = testing::Iota(32);
    for (int i = 0; i < 8; ++i) {
      NeuronCoreDevice& nc = Runtime::Get().core(i);
      nc.CreateStream();
      cores.push_back(&nc);
      xs.push_back(nc.Allocate(kStreamBytes));
      outs.push_back(nc.Allocate(testing::kScaleTensorBytes));
    }
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < 8; ++i) {
        NeuronCoreDevice& nc = *cores[i];
        nc.CopyToDevice(outs[i], data.data(), testing::kScaleTensorBytes, 1);
        nc.ExecuteAsync(nc.LoadKernel(StreamKernel()), {{"x", xs[i]}}, round);
        nc.CopyToCore(*cores[(i + 1) % 8], outs[(i + 1) % 8], outs[i], testing::kScaleTensorBytes, 1);
      }
    }
    for (NeuronCoreDevice* nc : cores) {
      for (const ExecutionHandle& h : nc->records()) {
        times.push_back(h->device_start);
        times.push_back(h->device_end);
      }
    }
    times.push_back(Now());
    return times;
  };
  const std::vector<Picos> first = run();
  EXPECT_EQ(first.size(), 8u * 6u * 2u + 1u);
  EXPECT_EQ(run(), first);
}

}  // namespace
}  // namespace rt
}  // namespace nsim
