#include "sim/memory/hbm.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "sim/base/error.h"

namespace nsim {

HbmMemory::HbmMemory(uint64_t capacity_bytes) : capacity_(capacity_bytes) {}

void HbmMemory::Check(uint64_t addr, uint64_t n) const {
  if (addr > capacity_ || n > capacity_ - addr) {
    std::ostringstream os;
    os << "HBM access [0x" << std::hex << addr << ", 0x" << addr + n << ") is outside device memory of 0x"
       << capacity_ << " bytes";
    throw SimError(os.str());
  }
}

void HbmMemory::Read(uint64_t addr, void* dst, uint64_t n) const {
  Check(addr, n);
  auto* out = static_cast<uint8_t*>(dst);
  while (n > 0) {
    const uint64_t page = addr / kPageBytes, in_page = addr % kPageBytes;
    const uint64_t chunk = std::min(n, kPageBytes - in_page);
    auto it = pages_.find(page);
    if (it == pages_.end()) {
      std::memset(out, 0, chunk);
    } else {
      std::memcpy(out, it->second.get() + in_page, chunk);
    }
    out += chunk;
    addr += chunk;
    n -= chunk;
  }
}

void HbmMemory::Write(uint64_t addr, const void* src, uint64_t n) {
  Check(addr, n);
  const auto* in = static_cast<const uint8_t*>(src);
  while (n > 0) {
    const uint64_t page = addr / kPageBytes, in_page = addr % kPageBytes;
    const uint64_t chunk = std::min(n, kPageBytes - in_page);
    auto& p = pages_[page];
    if (!p) {
      p.reset(new uint8_t[kPageBytes]);
      std::memset(p.get(), 0, kPageBytes);
    }
    std::memcpy(p.get() + in_page, in, chunk);
    in += chunk;
    addr += chunk;
    n -= chunk;
  }
}

}  // namespace nsim
