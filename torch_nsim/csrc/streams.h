#pragma once
// PyTorch's current neuron stream of this thread = the runtime stream the
// Neuron backend queues this thread's kernels and copies on.
#include "backend/neuron/device_glue.h"

namespace torch_nsim {

inline int CurrentStream(int device) { return nsim::neuron::CurrentStream(device); }
inline void SetCurrentStream(int device, int stream) { nsim::neuron::SetCurrentStream(device, stream); }

}  // namespace torch_nsim
