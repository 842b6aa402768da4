#pragma once
// Options of nsim::compile(), after torch.compile's keyword arguments.
#include <string>

namespace nsim {

struct CompileOptions {
  // true: the whole function must be one graph; anything that cannot be
  // captured (an op the backend has no lowering for, a data-dependent host
  // read such as .item() or .cpu()) is an error naming the op. false: the
  // graph breaks there, the op runs eagerly and capture resumes after it.
  bool fullgraph = false;
  // "neuron": each region becomes one kernel on the simulated NeuronCore.
  // "eager": the captured ops run one by one (the reference).
  std::string backend = "neuron";
};

}  // namespace nsim
