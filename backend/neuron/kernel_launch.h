#pragma once
// Running one kernel per eager op: kernels are cached by a key that
// determines them (op, sizes, strides, dtypes, scalars — the graph) and the
// core's hardware config, so repeated calls neither regenerate nor reload them;
// each call is one ExecuteAsync whose bindings are the HBM addresses of the
// op's tensors. The call returns after submission (the device runs later on
// the shared clock), as TorchNeuron's ops do.
//
//   GraphOperands ops{{{"a", a}, {"b", b}}, {{"out", out}}};
//   LaunchGraph("aten::mul.Tensor", ops, [&] { ...build the Graph from DescOf(a)... });
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "backend/neuron/codegen/generate.h"
#include "backend/neuron/codegen/graph.h"
#include "backend/tensor.h"
#include "runtime/neuron_core.h"
#include "sim/kernel/kernel.h"

namespace nsim {
namespace neuron {

// Loads (once per core and config) and executes the kernel `build` makes
// for `key`. `build` runs only when no core with this config has built the
// key before. On a logical core of several physical cores (LNC>1) the kernel
// runs on the first one alone.
rt::ExecutionHandle Launch(rt::NeuronCoreDevice& core, const std::string& key, const std::function<Kernel()>& build,
                           const rt::Bindings& bindings);

// The same for an op split over the physical cores of `core` (LNC>1): `build`
// returns one kernel per physical core (program i on physical_cores()[i],
// made alike by MakeProgramsAlike), or one kernel for an op that does not
// split, which runs on the first physical core. One execution either way.
rt::ExecutionHandle LaunchPrograms(rt::NeuronCoreDevice& core, const std::string& key,
                                   const std::function<std::vector<Kernel>()>& build, const rt::Bindings& bindings);

// The kernels of `graph` for `core`: one per physical core when the graph
// splits over them (codegen/program_split.h), else one. The graph's inputs
// and outputs are what the caller binds (any other HBM tensor is scratch).
std::vector<Kernel> GenerateForCore(const codegen::Graph& graph, const rt::NeuronCoreDevice& core,
                                    const codegen::GenerateOptions& options);

// Named tensors of one op: the graph's inputs and outputs, bound by name.
struct GraphOperands {
  std::vector<std::pair<std::string, at::Tensor>> inputs;
  std::vector<std::pair<std::string, at::Tensor>> outputs;
};

// One op as one generated kernel. The cache key is `op` and the graph
// `build` returns (its nodes, operand views, dtypes and scalars), so two
// calls share a kernel exactly when they would generate the same one.
// Operands are bound by name at their element 0. Ops with no elements run
// nothing. Returns the execution (null if none ran).
rt::ExecutionHandle LaunchGraph(const std::string& op, const GraphOperands& operands,
                                const std::function<codegen::Graph()>& build);

// The kernel name of an op's kernel: "aten::mul.Tensor" -> "aten_mul_Tensor"
// (kernel names are identifiers).
std::string KernelName(const std::string& op);

// Kernels generated so far in this process (the cache's misses), for tests.
int64_t GeneratedKernelCount();

}  // namespace neuron
}  // namespace nsim
