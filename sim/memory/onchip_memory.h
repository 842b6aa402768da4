#pragma once
// SBUF and PSUM of one core: `partitions` rows of bytes each. Addressing is
// (partition, byte offset within the partition), as the hardware's.
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"

namespace nsim {

class OnChipMemory {
 public:
  explicit OnChipMemory(const MemoryParams& p);
  uint8_t* Row(MemSpace space, int64_t partition) {
    return space == MemSpace::kSbuf ? sbuf_.get() + partition * sbuf_pitch_ : psum_.get() + partition * psum_pitch_;
  }
  // Bytes from one partition's row to the next in host memory: at least the
  // partition's size, see HostPitch.
  int64_t Pitch(MemSpace space) const { return space == MemSpace::kSbuf ? sbuf_pitch_ : psum_pitch_; }
  // Zeroes [offset, offset + bytes) in partitions [0, partitions), so that a
  // kernel never sees data left behind by an earlier one.
  void Clear(MemSpace space, int64_t offset, int64_t bytes, int64_t partitions);
  // Clears the SBUF/PSUM space of every on-chip tensor of `k` before it runs.
  void ClearTensorsOf(const Kernel& k);

 private:
  // calloc'd: the OS hands out zero pages on first touch, so a memory that a
  // run never touches (timing-only) costs no fill and no page faults.
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  using Bytes = std::unique_ptr<uint8_t[], Free>;
  static Bytes Zeroed(int64_t bytes);
  // A partition's bytes rounded up to whole cache lines, plus a skew of 17
  // lines. Partition sizes are powers of two or small multiples of them
  // (192 KiB, 16 KiB): rows that far apart map to the same few sets of the
  // host's caches, so the 128 rows of one tile evicted each other (a
  // [128, 512] bf16 tile kept ~1/8 of itself in a 1 MiB L2). An odd skew of
  // more lines than a typical row spreads consecutive rows over all sets.
  // Not observable: every access goes through Row() and Pitch().
  static int64_t HostPitch(int64_t partition_bytes);
  int64_t partitions_, sbuf_pitch_, psum_pitch_;
  Bytes sbuf_, psum_;
};

}  // namespace nsim
