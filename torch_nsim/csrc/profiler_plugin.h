#pragma once
// torch.profiler on the simulated device (PyTorch 2.13's PrivateUse1
// mechanism: a Kineto IActivityProfiler registered with
// REGISTER_PRIVATEUSE1_PROFILER). While a torch profile records, each
// device execution becomes a Kineto kernel activity of the PrivateUse1
// device whose duration is the simulated device time, linked to the torch op
// that launched it — the NEURON columns of key_averages(). The simulator's
// own profiler records the same window (device capture, framework/runtime/
// hardware/engine lanes) and writes its trace to the NeuronConfig's
// profile_output_dir.
#include <torch/extension.h>

namespace torch_nsim {

void RegisterProfilerBindings(py::module& m);

// Test helpers: the executions of a core since the last mark.
void MarkExecutions(int device);
py::list ExecutionsSinceMark(int device);

}  // namespace torch_nsim
