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
//   layer_norm         mean, sub, mul, mean, add, rsqrt, mul (, mul, add)
//   native_layer_norm  the same, also returning mean and rstd
//   _fused_rms_norm    mul, mean, add, rsqrt, mul (, mul)
//   var.correction     mean, sub, mul, sum, div
#include "backend/dispatcher.h"

namespace nsim {
namespace compiler {

// The decomposition of `op` for these arguments (the last entries of
// `stack`), or nullptr when the op is recorded as it is.
const at::KernelFunction* FindDecomposition(const at::OperatorHandle& op, const at::Stack& stack);

}  // namespace compiler
}  // namespace nsim
