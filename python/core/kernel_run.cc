#include "python/core/kernel_run.h"

#include <memory>
#include <utility>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"
#include "sim/model/loaded_kernel.h"
#include "tools/run_output.h"

namespace nsim {
namespace pyfront {
namespace {

constexpr uint64_t kFirstAddress = 4096;  // 0 never names a tensor
constexpr uint64_t kAlignment = 64;

std::string Key(const std::string& config, const std::vector<std::string>& overrides) {
  std::string key = config;
  for (const std::string& o : overrides) key += "\n" + o;
  return key;
}

struct Cached {
  HardwareConfig config;
  std::unique_ptr<Device> device;
  std::unique_ptr<Chip> chip;  // built on the first grid launch
};

Cached& CachedFor(const std::string& config, const std::vector<std::string>& overrides) {
  static std::map<std::string, Cached> cache;  // the Python interpreter drives it from one thread (GIL)
  const std::string key = Key(config, overrides);
  auto it = cache.find(key);
  if (it == cache.end()) {
    Cached c{LoadHardwareConfig(config, overrides), nullptr};
    c.device = std::make_unique<Device>(c.config);
    it = cache.emplace(key, std::move(c)).first;
  }
  return it->second;
}

const TensorDecl& HbmTensor(const Kernel& k, const std::string& name, const char* role) {
  const int id = k.FindTensor(name);
  if (id < 0) throw SimError(std::string(role) + " '" + name + "' is not a tensor of kernel '" + k.name + "'");
  const TensorDecl& t = k.tensors[id];
  if (t.space != MemSpace::kHbm) throw SimError(std::string(role) + " '" + name + "' is not an HBM tensor");
  return t;
}

uint64_t TensorBytes(const TensorDecl& t) { return static_cast<uint64_t>(t.NumElements() * DTypeSize(t.dtype)); }

// Places every input and output at its own address from `base` up, writes the
// inputs and zeroes the outputs (no bytes of an earlier run).
std::map<std::string, uint64_t> BindIo(const Kernel& k, const RunRequest& req, HbmMemory& hbm, uint64_t base) {
  std::map<std::string, uint64_t> bindings;
  uint64_t next = base + kFirstAddress;
  auto bind = [&](const std::string& name, const char* role) {
    if (bindings.count(name)) return bindings[name];
    const TensorDecl& t = HbmTensor(k, name, role);
    const uint64_t at = next;
    next = (next + TensorBytes(t) + kAlignment - 1) / kAlignment * kAlignment;
    return bindings[name] = at;
  };
  for (const auto& [name, bytes] : req.inputs) {
    const uint64_t at = bind(name, "input");
    const TensorDecl& t = HbmTensor(k, name, "input");
    if (bytes.size() != TensorBytes(t)) {
      throw SimError("input '" + name + "' has " + std::to_string(bytes.size()) + " bytes; the tensor needs " +
                     std::to_string(TensorBytes(t)));
    }
    hbm.Write(at, bytes.data(), bytes.size());
  }
  for (const std::string& name : req.outputs) {
    if (req.inputs.count(name) || req.timing_only) {  // timing-only: bound, but no values to clear
      bind(name, "output");
      continue;
    }
    const std::string zeros(TensorBytes(HbmTensor(k, name, "output")), '\0');  // no bytes of an earlier run
    hbm.Write(bind(name, "output"), zeros.data(), zeros.size());
  }
  return bindings;
}

std::map<std::string, std::string> ReadOutputs(const Kernel& k, const RunRequest& req, const HbmMemory& hbm,
                                               const std::map<std::string, uint64_t>& bindings) {
  std::map<std::string, std::string> outputs;
  for (const std::string& name : req.outputs) {
    if (req.timing_only) break;
    std::string bytes(TensorBytes(HbmTensor(k, name, "output")), '\0');
    hbm.Read(bindings.at(name), bytes.data(), bytes.size());
    outputs[name] = std::move(bytes);
  }
  return outputs;
}

}  // namespace

const HardwareConfig& ConfigFor(const std::string& config, const std::vector<std::string>& overrides) {
  return CachedFor(config, overrides).config;
}

RunResponse RunKernel(const RunRequest& req) {
  Cached& cached = CachedFor(req.config, req.overrides);
  Device& device = *cached.device;
  RunResponse resp{ParseKernel(req.kernel_text, req.source_name), cached.config, {}, {}, {}};
  const Kernel& k = resp.kernel;
  const std::map<std::string, uint64_t> bindings = BindIo(k, req, device.hbm(), 0);
  device.set_timing_only(req.timing_only);
  resp.result = device.Execute(*device.Load(k), bindings);
  device.set_timing_only(false);
  resp.outputs = ReadOutputs(k, req, device.hbm(), bindings);
  if (!req.profile_dir.empty()) {
    RunOutputOptions options;
    options.description.tool = "nki.benchmark";
    options.description.kernel_file = req.source_name;
    const prof::ExportedFiles files = WriteRunOutput(req.profile_dir, device, k, resp.result, options);
    resp.profile_files = {files.trace};
    resp.profile_files.insert(resp.profile_files.end(), files.neff.begin(), files.neff.end());
    resp.profile_files.insert(resp.profile_files.end(), files.ntff.begin(), files.ntff.end());
    for (const std::string& f : {files.summary_json, files.summary_text, files.report_html, files.instructions_csv}) {
      if (!f.empty()) resp.profile_files.push_back(f);
    }
  }
  return resp;
}

namespace {

std::vector<Kernel> ParsePrograms(const RunRequest& req, int programs, const std::vector<std::string>& texts) {
  if (texts.empty()) return ParseGrid(req.kernel_text, req.source_name, programs);
  if (static_cast<int>(texts.size()) != programs) {
    throw SimError(std::to_string(texts.size()) + " program texts for a grid of " + std::to_string(programs));
  }
  std::vector<Kernel> out;
  for (int i = 0; i < programs; ++i) out.push_back(ParseKernel(texts[i], req.source_name, ProgramIndex{i, programs}));
  return out;
}

}  // namespace

GridRunResponse RunGrid(const RunRequest& req, int programs, const std::vector<std::string>& program_texts) {
  Cached& cached = CachedFor(req.config, req.overrides);
  if (!cached.chip) cached.chip = std::make_unique<Chip>(cached.config);
  Chip& chip = *cached.chip;
  if (programs < 1 || programs > chip.cores()) {
    throw SimError("grid of " + std::to_string(programs) + " programs: config '" + cached.config.name + "' has " +
                   std::to_string(chip.cores()) + " NeuronCores per chip (chip.cores)");
  }
  GridRunResponse resp{ParsePrograms(req, programs, program_texts), cached.config, {}, {}};
  const Kernel& first = resp.kernels.front();
  const std::map<std::string, uint64_t> bindings = BindIo(first, req, chip.hbm(), chip.CoreMemoryBase(0));
  std::vector<std::shared_ptr<const LoadedKernel>> loaded;
  for (const Kernel& k : resp.kernels) loaded.push_back(chip.Load(k));
  resp.result = chip.Launch(loaded, bindings);
  resp.outputs = ReadOutputs(first, req, chip.hbm(), bindings);
  return resp;
}

}  // namespace pyfront
}  // namespace nsim
