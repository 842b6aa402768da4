#pragma once
// The "neuron" device as PyTorch sees it: the allocator of PrivateUse1
// tensors (simulated HBM of the runtime's NeuronCores), the current device
// and stream of this thread, and how many devices there are.
#include <c10/core/Allocator.h>
#include <c10/core/Device.h>

#include "runtime/neuron_core.h"

namespace torch_nsim {

c10::Allocator* NeuronAllocator();

// Devices torch sees: neuron:0 .. neuron:N-1 (set_device_count, default 1).
int DeviceCount();
void SetDeviceCount(int n);
int CurrentDevice();
void SetCurrentDevice(int index);
// The runtime core behind neuron:<index>; a bad index is an error naming it.
nsim::rt::NeuronCoreDevice& Core(int index);

}  // namespace torch_nsim
