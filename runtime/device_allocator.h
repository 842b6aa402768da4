#pragma once
// Device-memory allocator of one NeuronCore: hands out ranges of the core's
// HBM address space. Best fit over an address-ordered free list, with
// neighbouring free blocks coalesced on Free, so the same sequence of calls
// always yields the same addresses (runs are reproducible and addresses can
// appear in test expectations). Only bookkeeping: no bytes are touched and
// no simulated time is charged here (the core charges host.alloc).
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace nsim {
namespace rt {

struct AllocatorStats {
  uint64_t capacity = 0;      // bytes managed
  uint64_t bytes_in_use = 0;  // sum of live blocks (sizes after rounding)
  uint64_t peak_bytes_in_use = 0;
  uint64_t free_bytes = 0;          // capacity - bytes_in_use
  uint64_t largest_free_block = 0;  // the largest request that can still succeed (alignment aside)
  uint64_t free_blocks = 0;         // fragments of free space
  uint64_t live_allocations = 0;
  uint64_t total_allocations = 0;  // successful Allocate calls so far
};

class DeviceAllocator {
 public:
  // Sizes are rounded up to, and blocks aligned to at least, this many bytes,
  // so that splitting never leaves unusable slivers.
  static constexpr uint64_t kGranule = 64;

  // Manages [base, base + size). `label` names the owner in error messages
  // ("neuron:0"). `base` must be a multiple of kGranule.
  DeviceAllocator(std::string label, uint64_t base, uint64_t size);

  // The address of a new block of at least `bytes` (0 counts as one granule,
  // so every allocation has its own address), aligned to `alignment` (a power
  // of two). Throws RuntimeError when no free block fits, naming the request,
  // the free bytes and the largest free block.
  uint64_t Allocate(uint64_t bytes, uint64_t alignment = kGranule);

  // Returns the block starting at `address`. Throws RuntimeError for a double
  // free, an address inside a block (not its start) and an unknown address.
  void Free(uint64_t address);

  struct Block {
    uint64_t address = 0;
    uint64_t size = 0;
    uint64_t end() const { return address + size; }
  };
  // The live block containing `address`, if any.
  bool FindLive(uint64_t address, Block* block) const;
  // Whether any live block overlaps [lo, hi).
  bool AnyLiveIn(uint64_t lo, uint64_t hi) const;

  AllocatorStats stats() const;

 private:
  // The free block best fitting `size` at `alignment`: the smallest that
  // fits, the lowest address among equals. Returns false if none fits.
  bool BestFit(uint64_t size, uint64_t alignment, Block* chosen, uint64_t* start) const;
  void TakeFrom(const Block& free_block, uint64_t start, uint64_t size);
  void InsertFree(uint64_t address, uint64_t size);  // coalescing with neighbours
  [[noreturn]] void ThrowOutOfMemory(uint64_t bytes, uint64_t alignment) const;
  [[noreturn]] void ThrowBadFree(uint64_t address) const;

  std::string label_;
  uint64_t base_, size_;
  std::map<uint64_t, uint64_t> free_;  // address -> size, never adjacent (coalesced)
  std::map<uint64_t, uint64_t> live_;  // address -> size
  // Start addresses of freed blocks whose space is still free: tells a double
  // free from an address that was never allocated.
  std::set<uint64_t> freed_;
  uint64_t in_use_ = 0, peak_ = 0, total_allocations_ = 0;
};

}  // namespace rt
}  // namespace nsim
