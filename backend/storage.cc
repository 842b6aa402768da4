#include "backend/storage.h"

namespace nsim {
namespace at {

Storage Storage::Allocate(size_t nbytes, Device device) {
  DataPtr p = GetDeviceAllocator(device.type()).Allocate(nbytes, device);
  void* raw = p.get();
  return Storage(std::make_shared<Impl>(Impl{std::move(p), raw, nbytes, device}));
}

Storage Storage::Wrap(void* data, size_t nbytes, Device device, DataPtr owner) {
  return Storage(std::make_shared<Impl>(Impl{std::move(owner), data, nbytes, device}));
}

}  // namespace at
}  // namespace nsim
