#pragma once
// Byte copies between devices: one function registered per (source type,
// destination type), the same pattern as the allocators. The runtime registers
// cpu->neuron, neuron->cpu and neuron->neuron as DMA transfers; cpu->cpu and
// the meta copies (which move nothing) are built in.
//
//   SetCopyFunction(DeviceType::CPU, DeviceType::Neuron, &HostToDevice);
//
// Copies are always between contiguous byte ranges: dtype conversion and
// strided layouts are resolved by aten::copy_ before it calls here.
#include <cstddef>

#include "backend/device.h"

namespace nsim {
namespace at {

struct CopyRequest {
  void* dst_base;      // storage base pointer as returned by the allocator
  size_t dst_offset;   // bytes from dst_base
  Device dst_device;
  const void* src_base;
  size_t src_offset;
  Device src_device;
  size_t nbytes;
  bool non_blocking;   // the caller does not wait for completion
};

using CopyFunction = void (*)(const CopyRequest& request);

// Registers `fn` and returns the previous one (nullptr unregisters).
CopyFunction SetCopyFunction(DeviceType src, DeviceType dst, CopyFunction fn);

// Throws "no copy function registered from cpu to neuron" when none is set.
CopyFunction GetCopyFunction(DeviceType src, DeviceType dst);

}  // namespace at
}  // namespace nsim
