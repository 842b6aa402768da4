#pragma once
// CompilerBackend: what compile() hands a captured graph to (torch.compile's
// backend=...). A backend says, op by op while tracing, what it cannot
// compile (those ops become graph breaks, or errors with fullgraph), and
// turns a captured graph into a RegionExecutor. Backends register by name:
//
//   "neuron"  lowers each region to one kernel on the simulated NeuronCore
//   "eager"   runs the captured ops one by one through the dispatcher (the
//             reference, like torch.compile(backend="eager"))
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/compile/graph.h"

namespace nsim {
namespace compiler {

// Runs one compiled region on real tensors.
class RegionExecutor {
 public:
  virtual ~RegionExecutor() = default;
  // One tensor per placeholder in; one per graph output out.
  virtual std::vector<at::Tensor> Run(const std::vector<at::Tensor>& inputs) = 0;
};

class CompilerBackend {
 public:
  virtual ~CompilerBackend() = default;
  virtual std::string name() const = 0;
  // Why `call` (the last call of `g`, already shape-inferred) cannot be
  // compiled, or nullopt when it can. Asked once per op while tracing.
  virtual std::optional<std::string> Unsupported(const Graph& g, const Graph::Call& call) const = 0;
  // Compiles a whole region. Throws SimError naming the op or the limit when
  // it cannot (never returns something that computes the wrong thing).
  // `name` identifies the region (an identifier, e.g. for the kernel's name).
  virtual std::unique_ptr<RegionExecutor> Compile(const Graph& g, const std::string& name) const = 0;
};

// Backends by name; registration happens at static-initialisation time.
void RegisterBackend(std::unique_ptr<CompilerBackend> backend);
// Throws "compile(): unknown backend 'x' (known: eager, neuron)".
const CompilerBackend& GetBackend(const std::string& name);

}  // namespace compiler
}  // namespace nsim
