#include "backend/neuron/kernel_launch.h"

#include <cctype>
#include <map>
#include <mutex>

#include "backend/neuron/codegen/generate.h"
#include "backend/neuron/device_glue.h"
#include "backend/neuron/hbm_tensor.h"

namespace nsim {
namespace neuron {
namespace {

struct Loaded {
  const rt::NeuronCoreDevice* core = nullptr;  // a Runtime::Reset makes new cores
  rt::KernelRef kernel;
};

struct Cache {
  std::mutex mu;
  std::map<std::string, Kernel> kernels;  // config name | key
  std::map<std::string, Loaded> loaded;   // core index | config name | key
  int64_t generated = 0;
};

Cache& GetCache() {
  static Cache* c = new Cache;  // never destroyed: tensors may be freed during exit
  return *c;
}

// "aten::mul.Tensor" -> "aten_mul_Tensor": kernel names are identifiers.
std::string KernelName(const std::string& op) {
  std::string s;
  for (char c : op) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  while (s.find("__") != std::string::npos) s.replace(s.find("__"), 2, "_");
  return s;
}

}  // namespace

rt::ExecutionHandle Launch(rt::NeuronCoreDevice& core, const std::string& key, const std::function<Kernel()>& build,
                           const rt::Bindings& bindings) {
  Cache& c = GetCache();
  const std::string config_key = std::to_string(core.config_hash()) + "|" + key;  // content, not file name
  const std::string core_key = std::to_string(core.index()) + "|" + config_key;
  rt::KernelRef ref;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.loaded.find(core_key);
    if (it != c.loaded.end() && it->second.core == &core) ref = it->second.kernel;
  }
  if (!ref) {
    const Kernel* kernel = nullptr;
    {
      std::lock_guard<std::mutex> lock(c.mu);
      auto it = c.kernels.find(config_key);
      if (it != c.kernels.end()) kernel = &it->second;
    }
    if (kernel == nullptr) {
      Kernel built = build();
      std::lock_guard<std::mutex> lock(c.mu);
      ++c.generated;
      kernel = &c.kernels.emplace(config_key, std::move(built)).first->second;
    }
    ref = core.LoadKernel(*kernel);
    std::lock_guard<std::mutex> lock(c.mu);
    c.loaded[core_key] = Loaded{&core, ref};
  }
  return core.ExecuteAsync(ref, bindings, CurrentStream(core.index()), CurrentCorrelationId());
}

rt::ExecutionHandle LaunchGraph(const std::string& op, const GraphOperands& operands,
                                const std::function<codegen::Graph()>& build) {
  rt::Bindings bindings;
  const at::Tensor* first = nullptr;
  for (const auto* list : {&operands.inputs, &operands.outputs}) {
    for (const auto& [name, t] : *list) {
      if (t.numel() == 0) return nullptr;
      bindings[name] = ElementAddress(t);
      if (first == nullptr) first = &t;
    }
  }
  const codegen::Graph graph = build();
  rt::NeuronCoreDevice& core = CoreOf(first->device());
  return Launch(core, op + "\n" + graph.ToString(), [&] {
    codegen::GenerateOptions options;
    options.kernel_name = KernelName(op);
    return codegen::GenerateKernel(graph, core.config(), options).kernel;
  }, bindings);
}

int64_t GeneratedKernelCount() {
  Cache& c = GetCache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.generated;
}

}  // namespace neuron
}  // namespace nsim
