#pragma once
// Readable forms of a captured graph, after FX's str(graph) and
// graph.print_tabular():
//
//   graph():
//       %arg0 : BFloat16[4, 512] neuron:0 = placeholder[target=arg0]
//       %mul : BFloat16[4, 512] = call_function[target=aten::mul.Tensor](args = (%arg0, %arg0))
//       %mean : BFloat16[4, 1] = call_function[target=aten::mean.dim](args = (%mul, [-1], True))
//       ...
//       return (mul_2,)
//
// and a fingerprint: the exact text that two graphs share iff they would
// compile to the same kernel (strides and full-precision immediates included).
#include <string>

#include "backend/compile/graph.h"

namespace nsim {
namespace compiler {

std::string FormatGraph(const Graph& g);
std::string FormatTabular(const Graph& g);
std::string Fingerprint(const Graph& g);

// "BFloat16[4, 512]" plus the strides when the value is not contiguous.
std::string FormatMeta(const ValueMeta& m);

}  // namespace compiler
}  // namespace nsim
