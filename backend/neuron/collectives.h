#pragma once
// Collectives across the NeuronCores of one chip, as ATen-level ops of the
// "neuron" namespace (what torch.distributed's all_reduce becomes on one
// Trainium chip). Declared and registered in ops/collective_ops.cc.
//
//   std::vector<at::Tensor> t = {a.to("neuron:0"), b.to("neuron:1")};
//   neuron::AllReduce_(t);   // both now hold a + b
#include <vector>

#include "backend/tensor.h"

namespace nsim {
namespace neuron {

// neuron::all_reduce_(Tensor(a!)[] tensors) -> (): sums the tensors (one
// per device, same sizes and dtype, contiguous) in place on every device,
// through rt::Runtime::AllReduce (a ring over DMA, timed by the chip model).
void AllReduce_(const std::vector<at::Tensor>& tensors);

}  // namespace neuron
}  // namespace nsim
