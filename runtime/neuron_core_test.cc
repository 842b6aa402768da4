#include "runtime/neuron_core.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "runtime/errors.h"
#include "runtime/runtime.h"
#include "runtime/test_util.h"
#include "sim/kernel/hash.h"

namespace nsim {
namespace rt {
namespace {

using ::testing::AllOf;
using testing::ErrorOf;
using ::testing::HasSubstr;
using testing::Iota;
using testing::kScaleTensorBytes;
using testing::Now;
using testing::ScaleKernel;
using testing::Us;

// trn2's host.* values (configs/trn1.yaml, inherited): kernel_load 50us,
// runtime_submit 6us, copy_setup 8us, alloc 1us, chip.host_link_latency 2us,
// chip.host_link_bandwidth 16 B/ns.
class NeuronCoreTest : public testing::FreshRuntimeTest {
 protected:
  NeuronCoreDevice& core() { return Runtime::Get().core(0); }

  // x on the device holding 0, 1, 2, ..., and room for out.
  struct Buffers {
    uint64_t x, out;
  };
  Buffers Prepare(NeuronCoreDevice& nc) {
    Buffers b{nc.Allocate(kScaleTensorBytes), nc.Allocate(kScaleTensorBytes)};
    const std::vector<float> data = Iota(32);
    nc.CopyToDevice(b.x, data.data(), kScaleTensorBytes);
    return b;
  }
};

TEST_F(NeuronCoreTest, KernelCacheChargesOnlyTheFirstLoad) {
  const Kernel k = ScaleKernel(2);
  const Picos t0 = Now();
  const KernelRef first = core().LoadKernel(k);
  EXPECT_EQ(Now(), t0 + Us(50));  // a miss: host.kernel_load
  const KernelRef again = core().LoadKernel(ScaleKernel(2));
  EXPECT_EQ(Now(), t0 + Us(50));  // a hit: free
  EXPECT_EQ(again, first);
  core().LoadKernel(ScaleKernel(3));  // another hash: another miss
  EXPECT_EQ(Now(), t0 + Us(100));

  const KernelCacheStats s = core().kernel_cache_stats();
  EXPECT_EQ(s.hits, 1);
  EXPECT_EQ(s.misses, 2);
  EXPECT_EQ(s.entries, 2);
  EXPECT_EQ(first->hash, KernelHash(k));
  EXPECT_EQ(first->loaded->hash(), KernelHash(k));  // the load took the cache key's hash
  EXPECT_EQ(first->name, "scale");
  EXPECT_EQ(first->core, 0);
  EXPECT_EQ(first->config_name, "trn2");
  EXPECT_EQ(core().wall_time().loads, 2);
}

TEST_F(NeuronCoreTest, HostCostsAddUp) {
  NeuronCoreDevice& nc = core();
  ASSERT_EQ(Now(), 0);
  // 2 allocations (2 x 1us) + one H2D copy set-up (8us) = 10us.
  const Buffers b = Prepare(nc);
  EXPECT_EQ(Now(), Us(10));
  // + kernel load (50us) + one nrta_execute_schedule (6us) = 66us; the host
  // does not wait for the kernel.
  const KernelRef k = nc.LoadKernel(ScaleKernel());
  const ExecutionHandle h = nc.ExecuteAsync(k, {{"x", b.x}, {"out", b.out}});
  EXPECT_EQ(Now(), Us(66));
  EXPECT_EQ(h->submit_start, Us(60));
  EXPECT_EQ(h->submit_end, Us(66));
  EXPECT_EQ(h->host_return, Us(66));
}

TEST_F(NeuronCoreTest, ExecutionIsAsynchronousUntilSynchronize) {
  NeuronCoreDevice& nc = core();
  const Buffers b = Prepare(nc);
  const KernelRef k = nc.LoadKernel(ScaleKernel());
  const ExecutionHandle h = nc.ExecuteAsync(k, {{"x", b.x}, {"out", b.out}});
  // Nothing is simulated until the host needs it; simulated up to the
  // host's now (the submission's end), the kernel has only begun.
  EXPECT_FALSE(h->completed);
  EXPECT_FALSE(nc.IsComplete(h));
  EXPECT_FALSE(h->completed);

  nc.Synchronize();
  ASSERT_TRUE(h->completed);
  // The stream was free (the 128-byte copy ended long before), so the device
  // started as soon as the submission ended and ran for the model's time.
  EXPECT_EQ(h->device_start, h->submit_end);
  ASSERT_GT(h->result->device_time, 0);
  EXPECT_EQ(h->device_end, h->device_start + h->result->device_time);
  EXPECT_EQ(Now(), h->device_end);
  EXPECT_TRUE(nc.IsComplete(h));
  // Synchronising again, with nothing pending, costs nothing.
  nc.Synchronize(0);
  EXPECT_EQ(Now(), h->device_end);
}

TEST_F(NeuronCoreTest, WaitMovesTheHostToOneItem) {
  NeuronCoreDevice& nc = core();
  const Buffers b = Prepare(nc);
  const ExecutionHandle h = nc.ExecuteAsync(nc.LoadKernel(ScaleKernel()), {{"x", b.x}, {"out", b.out}});
  nc.Wait(h);
  EXPECT_EQ(Now(), h->device_end);
  EXPECT_TRUE(nc.IsComplete(h));
}

TEST_F(NeuronCoreTest, ExecutionsOnOneStreamSerialise) {
  // A submission (100ns) much shorter than the kernel, so the second
  // execution is submitted while the first still runs and must queue.
  NeuronCoreDevice& nc = Runtime::Get().ConfigureCore(0, "trn2", {"host.runtime_submit=100ns"});
  const Buffers b = Prepare(nc);
  const KernelRef k = nc.LoadKernel(ScaleKernel());
  const ExecutionHandle h1 = nc.ExecuteAsync(k, {{"x", b.x}, {"out", b.out}});
  const ExecutionHandle h2 = nc.ExecuteAsync(k, {{"x", b.x}, {"out", b.out}});
  EXPECT_EQ(h2->submit_start, h1->submit_end);
  EXPECT_EQ(h2->submit_end, h1->submit_end + 100 * kPicosPerNano);
  nc.Synchronize();
  EXPECT_EQ(Now(), h2->device_end);
  EXPECT_LT(h2->submit_end, h1->device_end);
  EXPECT_EQ(h2->device_start, h1->device_end);  // waited for the stream
  EXPECT_EQ(h2->device_end, h2->device_start + h2->result->device_time);
}

TEST_F(NeuronCoreTest, StreamsShareTheEnginesButNotTheCopyQueues) {
  // Short host costs, so that everything below is submitted while the
  // kernels still run.
  NeuronCoreDevice& nc =
      Runtime::Get().ConfigureCore(0, "trn2", {"host.runtime_submit=100ns", "host.copy_setup=100ns"});
  const Buffers b = Prepare(nc);
  const int s1 = nc.CreateStream();
  EXPECT_EQ(s1, 1);
  EXPECT_EQ(nc.num_streams(), 2);
  const KernelRef k = nc.LoadKernel(ScaleKernel());
  const ExecutionHandle h1 = nc.ExecuteAsync(k, {{"x", b.x}, {"out", b.out}}, 0);
  const ExecutionHandle h2 = nc.ExecuteAsync(k, {{"x", b.x}, {"out", b.out}}, s1);
  // A copy on a third stream does not wait for the engines.
  const int s2 = nc.CreateStream();
  std::vector<float> data = Iota(32);
  const ExecutionHandle c = nc.CopyToDevice(b.x, data.data(), kScaleTensorBytes, s2);
  // Synchronize(stream) waits for that stream only: the second kernel still runs.
  nc.Synchronize(s2);
  EXPECT_EQ(Now(), c->device_end);
  EXPECT_EQ(c->device_start, c->submit_end);
  EXPECT_FALSE(h2->completed);
  nc.Synchronize();
  EXPECT_EQ(Now(), h2->device_end);
  // A kernel on another stream still waited: the engines run one kernel at a time.
  EXPECT_EQ(h2->device_start, h1->device_end);
  EXPECT_LT(c->device_start, h2->device_end);
}

TEST_F(NeuronCoreTest, CopiesMoveBytesAndCostTheStatedTime) {
  NeuronCoreDevice& nc = core();
  constexpr uint64_t kBytes = 1 << 20;
  const uint64_t buf = nc.Allocate(kBytes);
  std::vector<uint8_t> data(kBytes);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + 3);

  // Device time of a 1 MiB copy: chip.host_link_latency + bytes / chip.host_link_bandwidth
  // = 2us + 1048576 B / 16 B/ns = 2us + 65536ns = 67.536us.
  const Picos kCopyTime = Us(2) + 65536 * kPicosPerNano;
  const Picos t0 = Now();
  const ExecutionHandle w = nc.CopyToDevice(buf, data.data(), kBytes);
  EXPECT_EQ(Now(), t0 + Us(8));  // H2D returns after host.copy_setup
  EXPECT_EQ(w->api, std::string("nrta_tensor_write"));
  EXPECT_EQ(w->kind, RecordKind::kCopyToDevice);
  EXPECT_EQ(w->bytes, kBytes);
  EXPECT_EQ(w->device_address, buf);

  // D2H on the same stream: set-up 8us after the write's return, then it
  // queues behind the write (which ends at t0 + 8us + 67.536us) and the host
  // waits for its end: t0 + 8us + 2 x 67.536us.
  std::vector<uint8_t> back(kBytes);
  const ExecutionHandle r = nc.CopyFromDevice(back.data(), buf, kBytes);
  EXPECT_EQ(back, data);
  EXPECT_EQ(w->device_start, t0 + Us(8));
  EXPECT_EQ(w->device_end, w->device_start + kCopyTime);
  std::vector<uint8_t> in_hbm(kBytes);
  nc.device().hbm().Read(buf, in_hbm.data(), kBytes);
  EXPECT_EQ(in_hbm, data);
  EXPECT_EQ(r->api, std::string("nrta_tensor_read"));
  EXPECT_EQ(r->submit_end, t0 + Us(16));
  EXPECT_EQ(r->device_start, w->device_end);
  EXPECT_EQ(r->device_end, t0 + Us(8) + 2 * kCopyTime);
  EXPECT_EQ(Now(), r->device_end);
  EXPECT_EQ(r->host_return, r->device_end);
  EXPECT_TRUE(nc.IsComplete(r));
}

TEST_F(NeuronCoreTest, ReadingAResultWaitsForTheKernel) {
  // A copy set-up (100ns) shorter than the kernel (~3us), so the read is
  // submitted while the kernel still runs.
  NeuronCoreDevice& nc = Runtime::Get().ConfigureCore(0, "trn2", {"host.copy_setup=100ns"});
  const Buffers b = Prepare(nc);
  const ExecutionHandle h = nc.ExecuteAsync(nc.LoadKernel(ScaleKernel(2)), {{"x", b.x}, {"out", b.out}});
  std::vector<float> out(32);
  const ExecutionHandle r = nc.CopyFromDevice(out.data(), b.out, kScaleTensorBytes);
  EXPECT_LT(r->submit_end, h->device_end);
  EXPECT_EQ(r->device_start, h->device_end);  // the read queues behind the kernel
  EXPECT_EQ(Now(), r->device_end);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[i], 2.0f * i) << i;
}

TEST_F(NeuronCoreTest, ExecutionRecordHoldsTheResult) {
  NeuronCoreDevice& nc = core();
  const Buffers b = Prepare(nc);
  const KernelRef k = nc.LoadKernel(ScaleKernel());
  const ExecutionHandle h = nc.ExecuteAsync(k, {{"x", b.x}, {"out", b.out}}, 0, /*correlation_id=*/42);
  nc.Wait(h);
  EXPECT_EQ(h->kind, RecordKind::kExecution);
  EXPECT_EQ(h->api, std::string("nrta_execute_schedule"));
  EXPECT_EQ(h->core, 0);
  EXPECT_EQ(h->stream, 0);
  EXPECT_EQ(h->correlation_id, 42u);
  EXPECT_EQ(h->kernel_hash, k->hash);
  EXPECT_EQ(h->kernel_name, "scale");
  EXPECT_EQ(h->kernel, k);
  EXPECT_EQ(h->result->kernel_hash, k->hash);
  EXPECT_FALSE(h->is_copy());
  // The simulator's own time is measured, apart from the simulated clock.
  EXPECT_GT(h->wall_ns, 0);
  EXPECT_EQ(nc.wall_time().executions, 1);
  EXPECT_GT(nc.wall_time().simulate.count(), 0);
}

TEST_F(NeuronCoreTest, UnknownStream) {
  NeuronCoreDevice& nc = core();
  const Buffers b = Prepare(nc);
  const KernelRef k = nc.LoadKernel(ScaleKernel());
  const Picos t0 = Now();
  EXPECT_THAT(
      ErrorOf([&] {
        nc.ExecuteAsync(k, {{"x", b.x}, {"out", b.out}}, 5);
      }),
      HasSubstr(
          "neuron:0: ExecuteAsync on unknown stream 5 (streams 0..0 exist; make more with CreateStream)"));
  float f = 0;
  EXPECT_THAT(ErrorOf([&] { nc.CopyToDevice(b.x, &f, 4, -1); }),
              HasSubstr("CopyToDevice on unknown stream -1"));
  EXPECT_THAT(ErrorOf([&] { nc.Synchronize(3); }), HasSubstr("Synchronize on unknown stream 3"));
  EXPECT_EQ(Now(), t0);  // failed calls cost nothing
}

TEST_F(NeuronCoreTest, BadBindings) {
  NeuronCoreDevice& nc = core();
  const Buffers b = Prepare(nc);
  const uint64_t small = nc.Allocate(64);
  const KernelRef k = nc.LoadKernel(ScaleKernel());
  const Picos t0 = Now();
  EXPECT_THAT(
      ErrorOf([&] {
        nc.ExecuteAsync(k, {{"x", 0x7000000}, {"out", b.out}});
      }),
      HasSubstr("neuron:0: ExecuteAsync of kernel 'scale': tensor 'x' (128 bytes) bound at 0x7000000: "
                "the address is not inside a live allocation"));
  EXPECT_THAT(ErrorOf([&] {
                nc.ExecuteAsync(k, {{"x", b.x}, {"out", small}});
              }),
              AllOf(HasSubstr("tensor 'out' (128 bytes) bound at"),
                    HasSubstr("runs past the end of its allocation")));
  EXPECT_THAT(ErrorOf([&] {
                nc.ExecuteAsync(k, {{"x", b.x}, {"t", b.out}});
              }),
              HasSubstr("binding for 't', which is not an HBM tensor of the kernel"));
  nc.Free(b.out);
  EXPECT_THAT(ErrorOf([&] {
                nc.ExecuteAsync(k, {{"x", b.x}, {"out", b.out}});
              }),
              HasSubstr("not inside a live allocation"));
  EXPECT_EQ(Now(), t0);
  EXPECT_TRUE(nc.records().size() == 1);  // only the copy in Prepare
}

TEST_F(NeuronCoreTest, AKernelLoadedBeforeResetIsRejected) {
  const KernelRef old = core().LoadKernel(ScaleKernel());
  EXPECT_TRUE(core().Holds(old));
  Runtime::Get().Reset();
  NeuronCoreDevice& nc = core();  // a new neuron:0
  EXPECT_FALSE(nc.Holds(old));
  const Buffers b = Prepare(nc);
  EXPECT_THAT(ErrorOf([&] { nc.ExecuteAsync(old, {{"x", b.x}, {"out", b.out}}); }),
              HasSubstr("neuron:0: ExecuteAsync of kernel 'scale', which was loaded on an earlier neuron:0 "
                        "(Runtime::Reset has made a new one since); load it again with LoadKernel"));
  const KernelRef fresh = nc.LoadKernel(ScaleKernel());
  EXPECT_TRUE(nc.Holds(fresh));
  nc.ExecuteAsync(fresh, {{"x", b.x}, {"out", b.out}});
  nc.Synchronize();
}

TEST_F(NeuronCoreTest, CopiesOutsideAllocationsAreRejected) {
  NeuronCoreDevice& nc = core();
  const uint64_t buf = nc.Allocate(64);
  std::vector<uint8_t> data(128);
  EXPECT_THAT(
      ErrorOf([&] { nc.CopyToDevice(buf, data.data(), 128); }),
      HasSubstr("neuron:0: CopyToDevice of 128 bytes at 0x1000: runs past the end of its allocation at "
                "0x1000 (64 bytes)"));
  EXPECT_THAT(ErrorOf([&] { nc.CopyFromDevice(data.data(), 0, 4); }),
              HasSubstr("CopyFromDevice of 4 bytes at 0x0: the address is not inside a live allocation"));
}

TEST_F(NeuronCoreTest, UnboundTensorsMustNotOverwriteAllocations) {
  NeuronCoreDevice& nc = core();
  const Buffers b = Prepare(nc);
  const KernelRef k = nc.LoadKernel(ScaleKernel());
  // With memory free at the top, an unbound `out` is the model's scratch.
  EXPECT_NO_THROW(nc.ExecuteAsync(k, {{"x", b.x}}));
  // Fill the rest of the device: the scratch would land on an allocation.
  nc.Allocate(nc.memory_stats().largest_free_block);
  EXPECT_THAT(
      ErrorOf([&] {
        nc.ExecuteAsync(k, {{"x", b.x}});
      }),
      AllOf(HasSubstr("its unbound HBM tensors need 4223 bytes of scratch at the top of device memory"),
            HasSubstr("overlaps live allocations; bind every HBM tensor")));
}

TEST_F(NeuronCoreTest, OutOfMemoryNamesTheCore) {
  NeuronCoreDevice& nc = core();
  // trn2 gives a core 12 GiB of HBM, less the first 4 KiB the allocator skips.
  EXPECT_EQ(nc.memory_stats().capacity, (12ull << 30) - 4096);
  EXPECT_THAT(ErrorOf([&] { nc.Allocate(13ull << 30); }),
              AllOf(HasSubstr("neuron:0: out of device memory: cannot allocate 13GiB"),
                    HasSubstr("free in 1 block(s)")));
  EXPECT_THAT(ErrorOf([&] { nc.Free(0x1000); }), HasSubstr("unknown address"));
}

}  // namespace
}  // namespace rt
}  // namespace nsim
