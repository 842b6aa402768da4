#include "backend/allocator.h"

#include <array>
#include <cstdlib>

#include "sim/base/error.h"

namespace nsim {
namespace at {
namespace {

class CpuAllocator : public DeviceAllocator {
 public:
  DataPtr Allocate(size_t nbytes, Device) override {
    // 64-byte alignment like c10's CPU allocator; at least 1 byte so a
    // zero-size tensor still has a distinct, valid pointer.
    const size_t rounded = (nbytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (p == nullptr) throw SimError("CPU allocator: out of memory allocating " +
                                     std::to_string(nbytes) + " bytes");
    return DataPtr(p, std::free);
  }
};

// Meta tensors have no data: every allocation is the null pointer.
class MetaAllocator : public DeviceAllocator {
 public:
  DataPtr Allocate(size_t, Device) override { return DataPtr(); }
};

// Function-local static (construct on first use): safe from static-init order
// when a registration block runs before this translation unit's globals.
std::array<DeviceAllocator*, kNumDeviceTypes>& Registry() {
  static CpuAllocator cpu;
  static MetaAllocator meta;
  static std::array<DeviceAllocator*, kNumDeviceTypes> registry = {&cpu, nullptr, &meta};
  return registry;
}

}  // namespace

DeviceAllocator* SetDeviceAllocator(DeviceType type, DeviceAllocator* allocator) {
  DeviceAllocator*& slot = Registry()[static_cast<int>(type)];
  DeviceAllocator* previous = slot;
  slot = allocator;
  return previous;
}

DeviceAllocator& GetDeviceAllocator(DeviceType type) {
  DeviceAllocator* a = Registry()[static_cast<int>(type)];
  if (a == nullptr) throw SimError(std::string("no allocator registered for device ") + ToString(type));
  return *a;
}

}  // namespace at
}  // namespace nsim
