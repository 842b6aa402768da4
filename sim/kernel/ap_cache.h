#pragma once
// A fixed-size direct-mapped cache keyed by an access pattern's content, for
// load-time work a long kernel repeats on the same tiles again and again
// (binding, printing). A hit costs one hash and one comparison; a miss costs
// the work it would have done anyway. Memory stays bounded however many
// distinct patterns a kernel has.
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/base/word_hash.h"
#include "sim/kernel/kernel.h"

namespace nsim {

// FNV-1a over the pattern's fields (tensor, partition_start, offset, dims).
inline uint64_t HashAccessPattern(const AccessPattern& ap) {
  WordHash h;
  h.Mix(static_cast<uint64_t>(ap.tensor)).Mix(static_cast<uint64_t>(ap.partition_start)).Mix(static_cast<uint64_t>(ap.offset));
  for (const ApDim& d : ap.dims) h.Mix(static_cast<uint64_t>(d.stride)).Mix(static_cast<uint64_t>(d.size));
  return h.value();
}

template <class V>
class ApCache {
 public:
  // Sized for a kernel of `instructions`: a few slots per instruction up to
  // 4096 (a small kernel, hashed on every dispatch, must not pay for more).
  static int SlotsLog2For(size_t instructions) {
    int log2 = 4;
    while (log2 < 12 && (size_t{1} << log2) < 2 * instructions) ++log2;
    return log2;
  }
  explicit ApCache(int slots_log2) : slots_(size_t{1} << slots_log2) {}

  // The value kept for a pattern equal to `ap` (whose hash is `h`), or nullptr.
  V* Find(const AccessPattern& ap, uint64_t h) {
    Slot& s = SlotOf(h);
    return s.used && s.hash == h && s.ap == ap ? &s.value : nullptr;
  }
  // Keeps `value` for `ap`, replacing whatever its slot held.
  V& Put(const AccessPattern& ap, uint64_t h, V value) {
    Slot& s = SlotOf(h);
    s.used = true;
    s.hash = h;
    s.ap = ap;
    s.value = std::move(value);
    return s.value;
  }

 private:
  struct Slot {
    bool used = false;
    uint64_t hash = 0;
    AccessPattern ap;
    V value{};
  };
  // The high bits pick the slot: FNV's low bits mix the last byte least.
  Slot& SlotOf(uint64_t h) { return slots_[(h >> 32) & (slots_.size() - 1)]; }
  std::vector<Slot> slots_;
};

}  // namespace nsim
