#pragma once
// DeviceAllocator: the extension point through which a device provides tensor
// memory. One allocator is registered per DeviceType; the runtime registers
// the Neuron one on top of simulated HBM. CPU (host heap) and Meta (no data)
// are built in.
//
//   class HbmAllocator : public DeviceAllocator { ... };
//   static HbmAllocator hbm;
//   SetDeviceAllocator(DeviceType::Neuron, &hbm);
//
// The returned pointer is opaque to the backend for non-CPU devices: it is
// only ever offset and handed back to the device's copy function
// (copy_registry.h) or its kernels, never dereferenced on the host.
#include <cstddef>
#include <memory>

#include "backend/device.h"

namespace nsim {
namespace at {

// Owning pointer to device memory; its deleter returns the memory.
using DataPtr = std::shared_ptr<void>;

class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;
  // Contract: returns memory for `nbytes` (may be 0) on `device`, or throws
  // nsim::SimError when out of memory. Must not return null for nbytes > 0.
  virtual DataPtr Allocate(size_t nbytes, Device device) = 0;
};

// Registers `allocator` (not owned; must outlive its use) for `type` and
// returns the previous one, so tests can restore it. nullptr unregisters.
DeviceAllocator* SetDeviceAllocator(DeviceType type, DeviceAllocator* allocator);

// Throws "no allocator registered for device neuron" when none is set.
DeviceAllocator& GetDeviceAllocator(DeviceType type);

}  // namespace at
}  // namespace nsim
