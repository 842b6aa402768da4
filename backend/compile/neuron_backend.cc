// The "neuron" compile backend: each captured region is lowered
// (lowering.h) to one codegen graph, generated into ONE kernel for the
// region's NeuronCore (one per physical core of an LNC>1 core, each
// computing its share of the rows), loaded once, and run with one
// ExecuteAsync per call.
#include "backend/compile/compiler_backend.h"
#include "backend/compile/lowering.h"
#include "backend/empty_tensor.h"
#include "backend/neuron/codegen/generate.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"
#include "sim/base/error.h"

namespace nsim {
namespace compiler {
namespace {

// Runs one compile step; codegen limits (SBUF, PSUM, shapes) and anything
// else become an error naming the region and the core.
template <typename Step>
auto Compiling(const std::string& name, const rt::NeuronCoreDevice& core, Step step) {
  try {
    return step();
  } catch (const std::exception& e) {
    throw SimError("compile(): cannot compile " + name + " for " + core.name() + ": " + e.what());
  }
}

// The region's kernels for `core`: one per physical core of an LNC>1 core.
std::vector<rt::KernelRef> LoadForCore(const cg::Graph& graph, const std::string& name, rt::NeuronCoreDevice& core) {
  return Compiling(name, core, [&] {
    neuron::codegen::GenerateOptions options;
    options.kernel_name = name;
    std::vector<rt::KernelRef> programs;
    for (const Kernel& k : neuron::GenerateForCore(graph, core, options)) programs.push_back(core.LoadKernel(k));
    return programs;
  });
}

class KernelExecutor : public RegionExecutor {
 public:
  KernelExecutor(const Graph& g, std::string name, LoweredRegion lowered, std::vector<rt::KernelRef> programs)
      : device_(GraphDevice(g)), name_(std::move(name)), lowered_(std::move(lowered)), programs_(std::move(programs)) {
    for (int v : g.outputs()) output_metas_.push_back(g.value(v).meta);
  }

  std::vector<at::Tensor> Run(const std::vector<at::Tensor>& inputs) override {
    rt::Bindings bindings;
    for (const KernelInput& in : lowered_.inputs) {
      const at::Tensor& t = inputs[in.placeholder];
      bindings[in.name] = neuron::ElementAddress(t) + static_cast<uint64_t>(in.element_offset * t.element_size());
    }
    std::vector<at::Tensor> outputs;
    for (size_t i = 0; i < output_metas_.size(); ++i) {
      outputs.push_back(at::EmptyTensor(output_metas_[i].sizes, output_metas_[i].dtype, device_));
      bindings[lowered_.outputs[i]] = neuron::ElementAddress(outputs.back());
    }
    // No framework op causes it (correlation id 0); the profiler attributes
    // it to the region's range, the op open on this thread.
    rt::NeuronCoreDevice& core = neuron::CoreOf(device_);
    // The device's core is a new one after Runtime::Reset (maybe of another
    // config or LNC): the kernels made for the old one are generated again.
    if (!core.Holds(programs_.front())) programs_ = LoadForCore(lowered_.graph, name_, core);
    if (programs_.size() == 1) {
      core.ExecuteAsync(programs_[0], bindings);
    } else {
      core.ExecuteAsync(programs_, bindings);
    }
    return outputs;
  }

 private:
  at::Device device_;
  std::string name_;
  LoweredRegion lowered_;
  std::vector<ValueMeta> output_metas_;
  std::vector<rt::KernelRef> programs_;
};

class NeuronBackend : public CompilerBackend {
 public:
  std::string name() const override { return "neuron"; }

  std::optional<std::string> Unsupported(const Graph& g, const Graph::Call& call) const override {
    return WhyNotLowerable(g, call);
  }

  std::unique_ptr<RegionExecutor> Compile(const Graph& g, const std::string& name) const override {
    rt::NeuronCoreDevice& core = neuron::CoreOf(GraphDevice(g));
    LoweredRegion lowered = Compiling(name, core, [&] { return Lower(g); });
    std::vector<rt::KernelRef> programs = LoadForCore(lowered.graph, name, core);
    return std::make_unique<KernelExecutor>(g, name, std::move(lowered), std::move(programs));
  }
};

const bool g_registered = (RegisterBackend(std::make_unique<NeuronBackend>()), true);

}  // namespace
}  // namespace compiler
}  // namespace nsim
