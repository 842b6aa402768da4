#pragma once
// The Neuron device under the frontend, registered at static-initialisation
// time by linking //backend/neuron (alwayslink):
//
// - DeviceAllocator for DeviceType::Neuron: HBM of rt::Runtime core(index)
//   (charges host.alloc); the DataPtr's deleter frees the block.
// - Copy functions: cpu -> neuron is nrta_tensor_write (asynchronous: the
//   host pays host.copy_setup and goes on), neuron -> cpu is
//   nrta_tensor_read (the host waits for the bytes, i.e. for everything
//   queued before it on the stream), neuron -> neuron a one-DMA HBM-to-HBM
//   kernel on the same core (through the host between cores).
// - HostCostModel: host.framework_dispatch of the op's core for every op a
//   user dispatches to the Neuron key (depth 0; ops the framework runs
//   inside another op are part of that op's dispatch).
#include <cstdint>

#include "backend/device.h"

namespace nsim {
namespace neuron {

// torch.neuron.synchronize(): the host waits until everything submitted to
// the device's core has finished (its simulated clock moves there).
void Synchronize(const at::Device& device = at::Device(at::kNeuron, 0));

// Correlation id of the innermost Neuron-key op running on this thread (0
// outside ops): what ExecuteAsync records so the profiler can link a
// device execution to the op that caused it.
uint64_t CurrentCorrelationId();

// The stream this thread's ops on core `core` are queued on (PyTorch's
// current stream; the runtime's default stream 0 unless set). Kernels and
// copies launched by ops go there.
int CurrentStream(int core);
void SetCurrentStream(int core, int stream);

}  // namespace neuron
}  // namespace nsim
