#include "python/core/kernel_run.h"

#include <memory>
#include <utility>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"
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

}  // namespace

const HardwareConfig& ConfigFor(const std::string& config, const std::vector<std::string>& overrides) {
  return CachedFor(config, overrides).config;
}

RunResponse RunKernel(const RunRequest& req) {
  Cached& cached = CachedFor(req.config, req.overrides);
  Device& device = *cached.device;
  RunResponse resp{ParseKernel(req.kernel_text, req.source_name), cached.config, {}, {}, {}};
  const Kernel& k = resp.kernel;
  std::map<std::string, uint64_t> bindings;
  uint64_t next = kFirstAddress;
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
    device.hbm().Write(at, bytes.data(), bytes.size());
  }
  for (const std::string& name : req.outputs) {
    if (req.inputs.count(name) || req.timing_only) {  // timing-only: bound, but no values to clear
      bind(name, "output");
      continue;
    }
    const std::string zeros(TensorBytes(HbmTensor(k, name, "output")), '\0');  // no bytes of an earlier run
    device.hbm().Write(bind(name, "output"), zeros.data(), zeros.size());
  }
  device.set_timing_only(req.timing_only);
  resp.result = device.Execute(*device.Load(k), bindings);
  device.set_timing_only(false);
  for (const std::string& name : req.outputs) {
    if (req.timing_only) break;
    std::string bytes(TensorBytes(HbmTensor(k, name, "output")), '\0');
    device.hbm().Read(bindings[name], bytes.data(), bytes.size());
    resp.outputs[name] = std::move(bytes);
  }
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

}  // namespace pyfront
}  // namespace nsim
