#include "sim/memory/onchip_memory.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace nsim {

OnChipMemory::OnChipMemory(const MemoryParams& p)
    : partitions_(p.partitions),
      sbuf_pitch_(HostPitch(p.sbuf_bytes_per_partition)),
      psum_pitch_(HostPitch(p.psum_banks * p.psum_bank_bytes)),
      sbuf_(Zeroed(p.partitions * sbuf_pitch_)),
      psum_(Zeroed(p.partitions * psum_pitch_)) {}

int64_t OnChipMemory::HostPitch(int64_t partition_bytes) {
  constexpr int64_t kLine = 64, kSkewLines = 17;
  return (partition_bytes + kLine - 1) / kLine * kLine + kSkewLines * kLine;
}

OnChipMemory::Bytes OnChipMemory::Zeroed(int64_t bytes) {
  void* p = std::calloc(static_cast<size_t>(std::max<int64_t>(bytes, 1)), 1);
  if (p == nullptr) throw std::bad_alloc();
  return Bytes(static_cast<uint8_t*>(p));
}

void OnChipMemory::Clear(MemSpace space, int64_t offset, int64_t bytes, int64_t partitions) {
  for (int64_t p = 0; p < partitions && p < partitions_; ++p) std::memset(Row(space, p) + offset, 0, bytes);
}

void OnChipMemory::ClearTensorsOf(const Kernel& k) {
  for (const TensorDecl& t : k.tensors) {
    if (t.space != MemSpace::kHbm) Clear(t.space, t.partition_offset, t.FreeElements() * DTypeSize(t.dtype), t.shape[0]);
  }
}

}  // namespace nsim
