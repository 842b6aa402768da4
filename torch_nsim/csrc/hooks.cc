// The PrivateUse1 hooks PyTorch asks a device for outside the dispatcher:
// autograd's engine checks them before it runs a backward pass on a device
// (without them `loss.backward()` on "neuron" stopped with "Please register
// PrivateUse1HooksInterface", naming neither an op nor the device).
#include <ATen/detail/PrivateUse1HooksInterface.h>

#include "torch_nsim/csrc/device.h"

namespace torch_nsim {
namespace {

struct NeuronHooks final : at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return true; }
  bool hasPrimaryContext(c10::DeviceIndex) const override { return true; }  // the simulator needs no context
  c10::DeviceIndex deviceCount() const override { return static_cast<c10::DeviceIndex>(DeviceCount()); }
  c10::DeviceIndex getCurrentDevice() const override { return static_cast<c10::DeviceIndex>(CurrentDevice()); }
  void setCurrentDevice(c10::DeviceIndex device) const override { SetCurrentDevice(device); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex device) const override {
    const c10::DeviceIndex previous = getCurrentDevice();
    SetCurrentDevice(device);
    return previous;
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex device) const override { return exchangeDevice(device); }
  // A neuron data pointer is an HBM address, not host memory: never pinned.
  bool isPinnedPtr(const void*) const override { return false; }
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override {
    TORCH_CHECK_NOT_IMPLEMENTED(false, "resizing the storage of a neuron tensor in place (", storage.nbytes(),
                                " -> ", newsize, " bytes) is not supported: make a new tensor");
  }
};

const bool registered = [] {
  static NeuronHooks hooks;
  at::RegisterPrivateUse1HooksInterface(&hooks);
  return true;
}();

}  // namespace
}  // namespace torch_nsim
