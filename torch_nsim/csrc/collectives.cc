// torch.ops.neuron.all_reduce_(tensors): the simulator's neuron::all_reduce_
// (backend/neuron/collectives.h) as a PyTorch op, so a PyTorch program sums
// one tensor per neuron device in place as torch.distributed's all_reduce
// would on one Trainium chip (a ring over DMA, timed by the chip model).
// torch_nsim.all_reduce_ is the Python spelling.
#include <torch/library.h>

#include "backend/neuron/collectives.h"
#include "torch_nsim/csrc/bridge.h"

namespace torch_nsim {
namespace {

namespace nat = nsim::at;

void AllReduce(at::TensorList tensors) {
  std::vector<nat::Tensor> views;
  for (size_t i = 0; i < tensors.size(); ++i) {
    views.push_back(ToNsim(tensors[i], "neuron::all_reduce_ tensor " + std::to_string(i)));
  }
  try {
    nsim::neuron::AllReduce_(views);  // checks devices, sizes, dtypes and contiguity
  } catch (const std::exception& e) {
    TORCH_CHECK(false, e.what());
  }
}

}  // namespace
}  // namespace torch_nsim

TORCH_LIBRARY(neuron, m) { m.def("all_reduce_(Tensor(a!)[] tensors) -> ()"); }
TORCH_LIBRARY_IMPL(neuron, PrivateUse1, m) { m.impl("all_reduce_", &torch_nsim::AllReduce); }
