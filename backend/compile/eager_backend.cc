// The "eager" compile backend: a captured region runs its ops one by one
// through the dispatcher, exactly as the uncompiled function would (the
// reference compile() is tested against, like torch.compile(backend="eager")).
// It compiles everything, so it never causes a graph break.
#include "backend/compile/compiler_backend.h"
#include "backend/compile/interpreter.h"

namespace nsim {
namespace compiler {
namespace {

class InterpreterExecutor : public RegionExecutor {
 public:
  explicit InterpreterExecutor(Graph g) : graph_(std::move(g)) {}
  std::vector<at::Tensor> Run(const std::vector<at::Tensor>& inputs) override {
    return Interpret(graph_, inputs);
  }

 private:
  Graph graph_;
};

class EagerBackend : public CompilerBackend {
 public:
  std::string name() const override { return "eager"; }
  std::optional<std::string> Unsupported(const Graph&, const Graph::Call&) const override {
    return std::nullopt;
  }
  std::unique_ptr<RegionExecutor> Compile(const Graph& g, const std::string&) const override {
    return std::make_unique<InterpreterExecutor>(g);
  }
};

const bool g_registered = (RegisterBackend(std::make_unique<EagerBackend>()), true);

}  // namespace
}  // namespace compiler
}  // namespace nsim
