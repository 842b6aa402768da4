#include "runtime/device_allocator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/errors.h"
#include "runtime/test_util.h"

namespace nsim {
namespace rt {
namespace {

using ::testing::AllOf;
using testing::ErrorOf;
using ::testing::HasSubstr;

constexpr uint64_t kBase = 4096;
constexpr uint64_t kSize = 1 << 20;  // 1 MiB

TEST(DeviceAllocatorTest, AddressesAreDeterministicAndRounded) {
  DeviceAllocator a("neuron:0", kBase, kSize);
  // Sizes round up to the 64-byte granule and blocks are taken from the
  // lowest-addressed best fit, so the addresses are known in advance.
  EXPECT_EQ(a.Allocate(100), kBase);      // 100 -> 128 bytes
  EXPECT_EQ(a.Allocate(1), kBase + 128);  // 1 -> 64
  EXPECT_EQ(a.Allocate(0), kBase + 192);  // 0 -> one granule, its own address
  EXPECT_EQ(a.Allocate(64), kBase + 256);
  EXPECT_EQ(a.stats().bytes_in_use, 128u + 64 + 64 + 64);
}

TEST(DeviceAllocatorTest, Alignment) {
  DeviceAllocator a("neuron:0", kBase, kSize);
  EXPECT_EQ(a.Allocate(64), kBase);
  const uint64_t aligned = a.Allocate(10, 64 * 1024);
  EXPECT_EQ(aligned % (64 * 1024), 0u);
  EXPECT_EQ(aligned, 64u * 1024);
  // The padding skipped for alignment stays usable: the next small block
  // lands right after the first one.
  EXPECT_EQ(a.Allocate(64), kBase + 64);
  // Alignments below the granule still give granule-aligned blocks.
  EXPECT_EQ(a.Allocate(8, 8) % DeviceAllocator::kGranule, 0u);
  EXPECT_THAT(ErrorOf([&] { a.Allocate(8, 48); }), HasSubstr("alignment 48 is not a power of two"));
}

TEST(DeviceAllocatorTest, FreeCoalescesNeighbours) {
  DeviceAllocator a("neuron:0", kBase, kSize);
  const uint64_t x = a.Allocate(1024), y = a.Allocate(1024), z = a.Allocate(1024);
  a.Free(x);
  a.Free(z);  // merges with the free tail
  EXPECT_EQ(a.stats().free_blocks, 2u);
  a.Free(y);  // bridges the two holes: one block again
  EXPECT_EQ(a.stats().free_blocks, 1u);
  EXPECT_EQ(a.stats().largest_free_block, kSize);
  // So the whole space can be handed out in one piece again.
  EXPECT_EQ(a.Allocate(kSize), kBase);
}

TEST(DeviceAllocatorTest, BestFitPrefersTheSmallestHole) {
  DeviceAllocator a("neuron:0", kBase, kSize);
  const uint64_t big = a.Allocate(4096);
  a.Allocate(64);  // keeps the holes apart
  const uint64_t small = a.Allocate(1024);
  a.Allocate(64);
  a.Free(big);
  a.Free(small);
  // A 1 KiB request fits both holes; best fit takes the 1 KiB one, leaving
  // the 4 KiB hole whole for a larger request.
  EXPECT_EQ(a.Allocate(1024), small);
  EXPECT_EQ(a.Allocate(4096), big);
}

TEST(DeviceAllocatorTest, OutOfMemoryNamesRequestAndFreeSpace) {
  DeviceAllocator a("neuron:3", kBase, kSize);
  a.Allocate(kSize - 64 * 1024);  // 64 KiB left
  EXPECT_THAT(ErrorOf([&] { a.Allocate(100 * 1024); }),
              AllOf(HasSubstr("neuron:3: out of device memory"),
                    HasSubstr("cannot allocate 100KiB (102400 bytes, alignment 64B)"),
                    HasSubstr("64KiB of 1MiB free in 1 block(s), the largest 64KiB")));
  // Larger than the whole device: no overflow, the same error.
  EXPECT_THAT(ErrorOf([&] { a.Allocate(~uint64_t{0}); }), HasSubstr("out of device memory"));
  // A failed request changes nothing.
  EXPECT_EQ(a.stats().live_allocations, 1u);
  EXPECT_EQ(a.Allocate(64 * 1024), kBase + kSize - 64 * 1024);
}

TEST(DeviceAllocatorTest, BadFrees) {
  DeviceAllocator a("neuron:0", kBase, kSize);
  const uint64_t x = a.Allocate(256);
  EXPECT_THAT(
      ErrorOf([&] { a.Free(x + 64); }),
      HasSubstr("cannot free 0x1040: it lies inside the allocation at 0x1000 (256B) but is not its start"));
  a.Free(x);
  EXPECT_THAT(ErrorOf([&] { a.Free(x); }), HasSubstr("neuron:0: cannot free 0x1000: double free"));
  EXPECT_THAT(ErrorOf([&] { a.Free(0xdead000); }), HasSubstr("cannot free 0xdead000: unknown address"));
  // Once the address is handed out again, freeing it is fine.
  EXPECT_EQ(a.Allocate(256), x);
  EXPECT_NO_THROW(a.Free(x));
}

TEST(DeviceAllocatorTest, StatsTrackUseAndPeak) {
  DeviceAllocator a("neuron:0", kBase, kSize);
  const uint64_t x = a.Allocate(1000);  // 1024 after rounding
  const uint64_t y = a.Allocate(3000);  // 3008
  a.Free(x);
  const AllocatorStats s = a.stats();
  EXPECT_EQ(s.capacity, kSize);
  EXPECT_EQ(s.bytes_in_use, 3008u);
  EXPECT_EQ(s.peak_bytes_in_use, 1024u + 3008);
  EXPECT_EQ(s.free_bytes, kSize - 3008);
  EXPECT_EQ(s.live_allocations, 1u);
  EXPECT_EQ(s.total_allocations, 2u);
  a.Free(y);
  EXPECT_EQ(a.stats().bytes_in_use, 0u);
  EXPECT_EQ(a.stats().peak_bytes_in_use, 1024u + 3008);
}

TEST(DeviceAllocatorTest, FindLiveAndOverlap) {
  DeviceAllocator a("neuron:0", kBase, kSize);
  const uint64_t x = a.Allocate(256);
  DeviceAllocator::Block b;
  ASSERT_TRUE(a.FindLive(x + 255, &b));
  EXPECT_EQ(b.address, x);
  EXPECT_EQ(b.size, 256u);
  EXPECT_FALSE(a.FindLive(x + 256, &b));
  EXPECT_FALSE(a.FindLive(0, &b));
  EXPECT_TRUE(a.AnyLiveIn(0, x + 1));
  EXPECT_TRUE(a.AnyLiveIn(x + 100, x + 101));
  EXPECT_FALSE(a.AnyLiveIn(x + 256, kBase + kSize));
}

}  // namespace
}  // namespace rt
}  // namespace nsim
