#pragma once
// Device memory of one core: a sparse, paged byte store over the configured
// HBM capacity. Pages appear on first write; unwritten bytes read as zero.
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace nsim {

class HbmMemory {
 public:
  explicit HbmMemory(uint64_t capacity_bytes);
  uint64_t capacity() const { return capacity_; }
  // Throw SimError if [addr, addr+n) is outside the capacity.
  void Read(uint64_t addr, void* dst, uint64_t n) const;
  void Write(uint64_t addr, const void* src, uint64_t n);

 private:
  static constexpr uint64_t kPageBytes = 1 << 16;
  void Check(uint64_t addr, uint64_t n) const;
  uint64_t capacity_;
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
};

}  // namespace nsim
