#pragma once
// CallArg: one argument of a compiled function as the type-erased core sees
// it: a tensor (traced, guarded on its metadata) or a number (guarded on its
// value, baked into the graph as an immediate, as TorchDynamo specialises
// Python numbers).
#include <cstdint>
#include <variant>
#include <vector>

#include "backend/tensor.h"

namespace nsim {
namespace compiler {

using CallArg = std::variant<at::Tensor, double, int64_t, bool>;

// The tensor arguments, in order.
std::vector<at::Tensor> TensorArgs(const std::vector<CallArg>& args);

}  // namespace compiler
}  // namespace nsim
