#pragma once
// SBUF and PSUM of one core: `partitions` rows of bytes each. Addressing is
// (partition, byte offset within the partition), as the hardware's.
#include <cstdint>
#include <vector>

#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"

namespace nsim {

class OnChipMemory {
 public:
  explicit OnChipMemory(const MemoryParams& p);
  uint8_t* Row(MemSpace space, int64_t partition) {
    return space == MemSpace::kSbuf ? &sbuf_[partition * sbuf_pitch_] : &psum_[partition * psum_pitch_];
  }
  int64_t Pitch(MemSpace space) const { return space == MemSpace::kSbuf ? sbuf_pitch_ : psum_pitch_; }
  // Zeroes [offset, offset + bytes) in partitions [0, partitions), so that a
  // kernel never sees data left behind by an earlier one.
  void Clear(MemSpace space, int64_t offset, int64_t bytes, int64_t partitions);
  // Clears the SBUF/PSUM space of every on-chip tensor of `k` before it runs.
  void ClearTensorsOf(const Kernel& k);

 private:
  int64_t partitions_, sbuf_pitch_, psum_pitch_;
  std::vector<uint8_t> sbuf_, psum_;
};

}  // namespace nsim
