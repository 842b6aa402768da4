#include "runtime/device_allocator.h"

#include <iterator>

#include "runtime/errors.h"
#include "sim/config/units.h"

namespace nsim {
namespace rt {
namespace {

uint64_t AlignUp(uint64_t x, uint64_t alignment) { return (x + alignment - 1) / alignment * alignment; }

bool IsPowerOfTwo(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

std::string Bytes(uint64_t n) { return FormatSize(static_cast<int64_t>(n)); }

}  // namespace

DeviceAllocator::DeviceAllocator(std::string label, uint64_t base, uint64_t size)
    : label_(std::move(label)), base_(base), size_(size / kGranule * kGranule) {
  if (base % kGranule != 0) {
    throw RuntimeError(label_ + ": allocator base " + HexAddress(base) + " is not a multiple of " +
                       Bytes(kGranule));
  }
  if (size_ > 0) free_.emplace(base_, size_);
}

uint64_t DeviceAllocator::Allocate(uint64_t bytes, uint64_t alignment) {
  if (!IsPowerOfTwo(alignment)) {
    throw RuntimeError(label_ + ": cannot allocate " + Bytes(bytes) + ": alignment " +
                       std::to_string(alignment) + " is not a power of two");
  }
  // Guard the rounding below against overflow; such a request cannot fit anyway.
  if (bytes > size_) ThrowOutOfMemory(bytes, alignment);
  const uint64_t size = bytes == 0 ? kGranule : AlignUp(bytes, kGranule);
  const uint64_t align = alignment < kGranule ? kGranule : alignment;
  Block chosen;
  uint64_t start = 0;
  if (!BestFit(size, align, &chosen, &start)) ThrowOutOfMemory(bytes, alignment);
  TakeFrom(chosen, start, size);
  return start;
}

bool DeviceAllocator::BestFit(uint64_t size, uint64_t alignment, Block* chosen, uint64_t* start) const {
  bool found = false;
  for (const auto& [address, block_size] : free_) {
    const uint64_t aligned = AlignUp(address, alignment);
    if (aligned - address >= block_size || block_size - (aligned - address) < size) continue;
    if (found && block_size >= chosen->size) continue;  // keep the smaller, then the lower
    *chosen = Block{address, block_size};
    *start = aligned;
    found = true;
  }
  return found;
}

void DeviceAllocator::TakeFrom(const Block& free_block, uint64_t start, uint64_t size) {
  free_.erase(free_block.address);
  // The alignment padding before and the remainder after stay free; neither
  // touches another free block, so no coalescing is needed.
  if (start > free_block.address) free_.emplace(free_block.address, start - free_block.address);
  if (start + size < free_block.end()) free_.emplace(start + size, free_block.end() - start - size);
  live_.emplace(start, size);
  freed_.erase(freed_.lower_bound(start), freed_.lower_bound(start + size));
  in_use_ += size;
  if (in_use_ > peak_) peak_ = in_use_;
  ++total_allocations_;
}

void DeviceAllocator::Free(uint64_t address) {
  auto it = live_.find(address);
  if (it == live_.end()) ThrowBadFree(address);
  const uint64_t size = it->second;
  live_.erase(it);
  in_use_ -= size;
  freed_.insert(address);
  InsertFree(address, size);
}

void DeviceAllocator::InsertFree(uint64_t address, uint64_t size) {
  auto next = free_.lower_bound(address);
  if (next != free_.end() && address + size == next->first) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == address) {
      prev->second += size;
      return;
    }
  }
  free_.emplace_hint(next, address, size);
}

bool DeviceAllocator::FindLive(uint64_t address, Block* block) const {
  auto it = live_.upper_bound(address);  // first block starting after `address`
  if (it == live_.begin()) return false;
  --it;
  if (address >= it->first + it->second) return false;
  *block = Block{it->first, it->second};
  return true;
}

bool DeviceAllocator::AnyLiveIn(uint64_t lo, uint64_t hi) const {
  if (lo >= hi) return false;
  Block b;
  if (FindLive(lo, &b)) return true;
  auto it = live_.lower_bound(lo);
  return it != live_.end() && it->first < hi;
}

AllocatorStats DeviceAllocator::stats() const {
  AllocatorStats s;
  s.capacity = size_;
  s.bytes_in_use = in_use_;
  s.peak_bytes_in_use = peak_;
  s.free_bytes = size_ - in_use_;
  s.free_blocks = free_.size();
  for (const auto& entry : free_) {
    if (entry.second > s.largest_free_block) s.largest_free_block = entry.second;
  }
  s.live_allocations = live_.size();
  s.total_allocations = total_allocations_;
  return s;
}

void DeviceAllocator::ThrowOutOfMemory(uint64_t bytes, uint64_t alignment) const {
  const AllocatorStats s = stats();
  throw RuntimeError(label_ + ": out of device memory: cannot allocate " + Bytes(bytes) + " (" +
                     std::to_string(bytes) + " bytes, alignment " + Bytes(alignment) + "); " +
                     Bytes(s.free_bytes) + " of " + Bytes(s.capacity) + " free in " +
                     std::to_string(s.free_blocks) + " block(s), the largest " + Bytes(s.largest_free_block) +
                     "; " + std::to_string(s.live_allocations) + " allocation(s) live");
}

void DeviceAllocator::ThrowBadFree(uint64_t address) const {
  const std::string what = label_ + ": cannot free " + HexAddress(address) + ": ";
  Block b;
  if (FindLive(address, &b)) {
    throw RuntimeError(what + "it lies inside the allocation at " + HexAddress(b.address) + " (" +
                       Bytes(b.size) + ") but is not its start");
  }
  if (freed_.count(address)) throw RuntimeError(what + "double free (already freed)");
  throw RuntimeError(what + "unknown address (never allocated on this core)");
}

}  // namespace rt
}  // namespace nsim
