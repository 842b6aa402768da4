#pragma once
// Dead-code elimination: drops the calls of a graph that no output depends
// on (a decomposition's unused statistics, values the function computed and
// dropped), so they are neither compiled nor counted in the fingerprint.
// Placeholders are kept, in order, so the caller's input binding stays valid.
#include "backend/compile/graph.h"

namespace nsim {
namespace compiler {

Graph EliminateDeadCode(const Graph& g);

}  // namespace compiler
}  // namespace nsim
