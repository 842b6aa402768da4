#include "sim/model/onchip_memory.h"

#include <cstring>

namespace nsim {

OnChipMemory::OnChipMemory(const MemoryParams& p)
    : partitions_(p.partitions),
      sbuf_pitch_(p.sbuf_bytes_per_partition),
      psum_pitch_(p.psum_banks * p.psum_bank_bytes),
      sbuf_(static_cast<size_t>(p.partitions * p.sbuf_bytes_per_partition)),
      psum_(static_cast<size_t>(p.partitions * p.psum_banks * p.psum_bank_bytes)) {}

void OnChipMemory::Clear(MemSpace space, int64_t offset, int64_t bytes, int64_t partitions) {
  for (int64_t p = 0; p < partitions && p < partitions_; ++p) std::memset(Row(space, p) + offset, 0, bytes);
}

void OnChipMemory::ClearTensorsOf(const Kernel& k) {
  for (const TensorDecl& t : k.tensors) {
    if (t.space != MemSpace::kHbm) Clear(t.space, t.partition_offset, t.FreeElements() * DTypeSize(t.dtype), t.shape[0]);
  }
}

}  // namespace nsim
