#pragma once
// Runs captured ops for real, one dispatched op at a time: the "eager"
// compile backend, and the graph-break ops that run outside any region.
#include <functional>
#include <vector>

#include "backend/compile/graph.h"

namespace nsim {
namespace compiler {

// The boxed arguments of a call: kValue args become tensors from `value`
// (a graph value or a program slot, by the caller's numbering).
at::Stack BoxArgs(const std::vector<Arg>& args, const std::function<at::Tensor(int)>& value);

// Runs every call of `g` through the dispatcher (observed and charged like
// eager ops); one input per placeholder, one result per graph output.
std::vector<at::Tensor> Interpret(const Graph& g, const std::vector<at::Tensor>& inputs);

}  // namespace compiler
}  // namespace nsim
