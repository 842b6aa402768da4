#pragma once
// Decompositions: composite ATen ops that the tracer replaces by the simpler
// ops they are made of, as AOTAutograd's decomposition table does, so a
// backend only has to compile core ops (elementwise, reductions, mm, views).
// Each is a C++ function over tensors; the tracer calls it on the fakes and
// records the ops it dispatches. Low-precision inputs are upcast to Float for
// the computation and the result cast back, as PyTorch's decompositions do
// (and as the CPU reference computes).
//
//   softmax.int        amax, sub, exp, sum, div
//   layer_norm         mean, sub, square, mean, add, rsqrt, mul (, mul, add)
//   native_layer_norm  the same, also returning mean and rstd
//   _fused_rms_norm    mul, mean, add, rsqrt, mul (, mul)
//   var.correction     mean, sub, square, sum, div
//
// These are the only decompositions: compile() traces through them,
// torch.compile(backend="neuron") replays RecordDecomposition's graph on its
// own tensors (torch_nsim/compiler.py), and the eager Neuron kernels of
// softmax, native_layer_norm and var are that graph lowered into one kernel
// (decomposed_kernels.cc).
#include <optional>
#include <vector>

#include "backend/compile/graph.h"
#include "backend/dispatcher.h"

namespace nsim {
namespace compiler {

// The decomposition of `op` for these arguments (the last entries of
// `stack`), or nullptr when the op is recorded as it is.
const at::KernelFunction* FindDecomposition(const at::OperatorHandle& op, const at::Stack& stack);

// `op` decomposed for arguments `args` (one per schema argument; a value
// Arg indexes `inputs`, the metadata of the op's tensor arguments): a graph
// whose placeholders are `inputs`, in order, and whose outputs are the op's
// results; nullopt when `op` is not decomposed for these arguments.
std::optional<Graph> RecordDecomposition(const at::OperatorHandle& op, const std::vector<Arg>& args,
                                         const std::vector<ValueMeta>& inputs);
// The ops that have a decomposition (full names).
std::vector<std::string> DecomposedOps();

}  // namespace compiler
}  // namespace nsim
