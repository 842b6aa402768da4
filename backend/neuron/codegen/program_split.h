#pragma once
// Splitting one graph over the physical cores of a logical NeuronCore (LNC>1),
// as the Neuron compiler does for TorchNeuron: program i of P computes a
// contiguous share of the rows of every output — rows (i*N)/P .. ((i+1)*N)/P
// along one axis of N — reading only the input rows it needs. Inputs that
// broadcast along that axis (a weight row, a scalar) are read whole by every
// program. The per-program graphs bind the same tensor names at the same
// element 0 as the original: only their views (sizes, offsets) differ, so one
// set of bindings serves every program.
//
//   std::optional<ProgramSplit> s = SplitRows(g, 2);
//   if (s) for (const Graph& p : s->programs) GenerateKernel(p, config, ...);
//
// A graph splits along the first axis of its first output (outermost first)
// of at least P rows over which every node's work is independent: pointwise
// nodes, row reductions (not along the reduced dim), views, and matmul along
// M or a batch dim. Anything else (a reduction to a scalar, a single row, a
// split that two users of one value would need differently) does not split,
// and `why` says which.
#include <optional>
#include <string>
#include <vector>

#include "backend/neuron/codegen/graph.h"

namespace nsim {
namespace neuron {
namespace codegen {

struct ProgramSplit {
  int axis = 0;        // of the first output's value
  int64_t rows = 0;    // N: that axis' size
  std::vector<Graph> programs;
};

std::optional<ProgramSplit> SplitRows(const Graph& g, int programs, std::string* why = nullptr);

// Program `program` of `programs`' share [first, first + count) of `rows`.
struct RowShare {
  int64_t first = 0;
  int64_t count = 0;
};
RowShare ShareOf(int64_t rows, int program, int programs);

// `d` restricted to [first, first + count) along `axis` (same memory, so the
// same binding): sizes[axis] = count, offset advanced by first rows.
TensorDesc SliceDesc(const TensorDesc& d, int axis, int64_t first, int64_t count);

// The axis of `to` holding axis `axis` of `from` when the two shapes differ
// only in size-1 dims (a view), or -1. `from[axis]` must not be 1.
int MatchingAxis(const std::vector<int64_t>& from, int axis, const std::vector<int64_t>& to);

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
