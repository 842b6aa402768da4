#pragma once
// Lowering: one captured ATen graph -> one codegen dataflow graph, which
// backend/neuron/codegen/generate.h turns into ONE kernel (elementwise and
// reduction chains fused, intermediates in SBUF, ops on their engines, the
// free dim tiled and double-buffered). The rules per op are in
// lowering_rules.h; this file binds the graph's inputs and outputs:
//
//   - every view of a region input the kernel reads becomes one kernel
//     input (a strided HBM access pattern over the input's memory);
//   - every graph output becomes one kernel output, written contiguously
//     (an output that is only a view of an input is copied by the kernel);
//   - Python numbers and Scalar arguments become immediates: no tensor, no
//     host-to-device copy.
#include <string>
#include <vector>

#include "backend/compile/graph.h"
#include "backend/compile/lowering_rules.h"

namespace nsim {
namespace compiler {

// A kernel input: the HBM tensor `name` is placeholder `placeholder`'s
// memory starting `element_offset` elements after its first element.
struct KernelInput {
  std::string name;
  int placeholder = -1;
  int64_t element_offset = 0;
};

struct LoweredRegion {
  cg::Graph graph;
  std::vector<KernelInput> inputs;
  std::vector<std::string> outputs;  // kernel output per graph output
};

// Throws SimError naming the op when a call has no rule or fails its check.
// `output_descs`, when given (one per graph output, with its sizes), says
// where each output is written; by default contiguously.
LoweredRegion Lower(const Graph& g, const std::vector<cg::TensorDesc>* output_descs = nullptr);

// Why the Neuron backend cannot compile `call` (nullopt: it can).
std::optional<std::string> WhyNotLowerable(const Graph& g, const Graph::Call& call);

}  // namespace compiler
}  // namespace nsim
