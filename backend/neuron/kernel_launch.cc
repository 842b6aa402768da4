#include "backend/neuron/kernel_launch.h"

#include <cctype>
#include <map>
#include <mutex>
#include <set>

#include "backend/neuron/codegen/program_split.h"
#include "backend/neuron/device_glue.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/spmd_programs.h"

namespace nsim {
namespace neuron {
namespace {

struct Cache {
  std::mutex mu;
  std::map<std::string, std::vector<Kernel>> kernels;  // config hash | programs | key
  // core index | config hash | programs | key. A Runtime::Reset makes new
  // cores (maybe at the same address): entries count only while the core
  // holds them (NeuronCoreDevice::Holds).
  std::map<std::string, std::vector<rt::KernelRef>> loaded;
  int64_t generated = 0;
};

Cache& GetCache() {
  static Cache* c = new Cache;  // never destroyed: tensors may be freed during exit
  return *c;
}

}  // namespace

std::string KernelName(const std::string& op) {
  std::string s;
  for (char c : op) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  while (s.find("__") != std::string::npos) s.replace(s.find("__"), 2, "_");
  return s;
}

rt::ExecutionHandle LaunchPrograms(rt::NeuronCoreDevice& core, const std::string& key,
                                   const std::function<std::vector<Kernel>()>& build, const rt::Bindings& bindings) {
  Cache& c = GetCache();
  // The config's content, not its name; the programs a key splits into
  // depend on the logical core's width.
  std::string config_key = std::to_string(core.config_hash()) + "|" + key;
  if (core.lnc() > 1) config_key = "lnc" + std::to_string(core.lnc()) + "|" + config_key;
  const std::string core_key = std::to_string(core.index()) + "|" + config_key;
  std::vector<rt::KernelRef> refs;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.loaded.find(core_key);
    if (it != c.loaded.end() && core.Holds(it->second.front())) refs = it->second;
  }
  if (refs.empty()) {
    const std::vector<Kernel>* kernels = nullptr;
    {
      std::lock_guard<std::mutex> lock(c.mu);
      auto it = c.kernels.find(config_key);
      if (it != c.kernels.end()) kernels = &it->second;
    }
    if (kernels == nullptr) {
      std::vector<Kernel> built = build();
      std::lock_guard<std::mutex> lock(c.mu);
      ++c.generated;
      kernels = &c.kernels.emplace(config_key, std::move(built)).first->second;
    }
    for (const Kernel& k : *kernels) refs.push_back(core.LoadKernel(k));
    std::lock_guard<std::mutex> lock(c.mu);
    c.loaded[core_key] = refs;
  }
  const int stream = CurrentStream(core.index());
  if (refs.size() == 1) return core.ExecuteAsync(refs[0], bindings, stream, CurrentCorrelationId());
  return core.ExecuteAsync(refs, bindings, stream, CurrentCorrelationId());
}

rt::ExecutionHandle Launch(rt::NeuronCoreDevice& core, const std::string& key, const std::function<Kernel()>& build,
                           const rt::Bindings& bindings) {
  return LaunchPrograms(core, key, [&] { return std::vector<Kernel>{build()}; }, bindings);
}

std::vector<Kernel> GenerateForCore(const codegen::Graph& graph, const rt::NeuronCoreDevice& core,
                                    const codegen::GenerateOptions& options) {
  const std::optional<codegen::ProgramSplit> split = codegen::SplitRows(graph, core.lnc());
  if (!split) return {codegen::GenerateKernel(graph, core.config(), options).kernel};
  std::vector<Kernel> programs;
  for (const codegen::Graph& p : split->programs) programs.push_back(codegen::GenerateKernel(p, core.config(), options).kernel);
  std::set<std::string> bound;
  for (const codegen::Node& n : graph.nodes()) {
    if (n.kind == codegen::OpKind::kInput) bound.insert(n.name);
  }
  for (const codegen::GraphOutput& o : graph.outputs()) bound.insert(o.name);
  MakeProgramsAlike(programs, bound);
  return programs;
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
  return LaunchPrograms(core, op + "\n" + graph.ToString(), [&] {
    codegen::GenerateOptions options;
    options.kernel_name = KernelName(op);
    return GenerateForCore(graph, core, options);
  }, bindings);
}

int64_t GeneratedKernelCount() {
  Cache& c = GetCache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.generated;
}

}  // namespace neuron
}  // namespace nsim
