#pragma once
// Casts that cost an instruction per tile but change no value, folded away
// before a kernel is generated. Engines compute in fp32 and round once when
// they write their result, so:
//   - a widening cast (bf16/f16 -> f32) read only by pointwise ops and row
//     reductions is dropped: they read the narrow value, exactly as wide;
//   - a narrowing cast (f32 -> bf16/f16) of a pointwise op that nothing
//     else reads becomes that op's result dtype: the one rounding moves into
//     the op's write. (Not of a row reduction: a long row is reduced in
//     parts, each written in the result's dtype.)
// What composite ops' decompositions produce (upcast, compute in fp32,
// cast back) then generates the kernel a hand-written graph would.
#include "backend/neuron/codegen/graph.h"

namespace nsim {
namespace neuron {
namespace codegen {

Graph FoldCasts(const Graph& g);

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
