#include "backend/neuron/codegen/codegen_testing.h"

#include <random>

namespace nsim {
namespace neuron {
namespace codegen {
namespace testing {
namespace {

std::vector<uint8_t> ToBytes(const std::vector<float>& v, DType t) {
  std::vector<uint8_t> b(v.size() * DTypeSize(t));
  for (size_t i = 0; i < v.size(); ++i) StoreElement(t, b.data() + i * DTypeSize(t), v[i]);
  return b;
}

std::vector<float> FromBytes(const std::vector<uint8_t>& b, DType t) {
  std::vector<float> v(b.size() / DTypeSize(t));
  for (size_t i = 0; i < v.size(); ++i) v[i] = LoadElement(t, b.data() + i * DTypeSize(t));
  return v;
}

}  // namespace

std::vector<float> Random(size_t n, uint64_t seed, DType t, float scale) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = RoundTo(t, d(rng));
  return v;
}

DeviceRun RunOnDevice(const Graph& g, const std::map<std::string, std::vector<float>>& inputs,
                      const GenerateOptions& options, int core_index) {
  rt::NeuronCoreDevice& core = rt::Runtime::Get().core(core_index);
  DeviceRun run;
  run.kernel = GenerateKernel(g, core.config(), options);
  rt::Bindings bind;
  std::vector<uint64_t> allocations;
  for (const Node& n : g.nodes()) {
    if (n.kind != OpKind::kInput) continue;
    const std::vector<uint8_t> bytes = ToBytes(inputs.at(n.name), n.desc.dtype);
    const uint64_t addr = core.Allocate(bytes.size());
    core.CopyToDevice(addr, bytes.data(), bytes.size());
    bind[n.name] = addr;
    allocations.push_back(addr);
  }
  for (const GraphOutput& o : g.outputs()) {
    const uint64_t addr = core.Allocate(o.desc.Extent() * DTypeSize(o.desc.dtype));
    bind[o.name] = addr;
    allocations.push_back(addr);
  }
  const rt::ExecutionHandle h = core.ExecuteAsync(core.LoadKernel(run.kernel.kernel), bind);
  core.Wait(h);  // the record is filled when the kernel completes
  run.device_time = h->result->device_time;
  for (const GraphOutput& o : g.outputs()) {
    std::vector<uint8_t> bytes(o.desc.Extent() * DTypeSize(o.desc.dtype));
    core.CopyFromDevice(bytes.data(), bind[o.name], bytes.size());
    run.outputs[o.name] = FromBytes(bytes, o.desc.dtype);
  }
  for (uint64_t a : allocations) core.Free(a);
  return run;
}

}  // namespace testing
}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
