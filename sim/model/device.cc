#include "sim/model/device.h"

#include <sstream>

#include "sim/base/error.h"
#include "sim/model/loaded_kernel.h"
#include "sim/model/onchip_memory.h"
#include "sim/model/sim_host.h"
#include "sim/model/tensor_init.h"
#include "sim/model/timing_run.h"

namespace nsim {

Device::Device(HardwareConfig config)
    : config_(std::move(config)),
      hbm_(std::make_unique<HbmMemory>(static_cast<uint64_t>(config_.memory.hbm_bytes))),
      onchip_(std::make_unique<OnChipMemory>(config_.memory)) {}

Device::~Device() = default;

std::shared_ptr<const LoadedKernel> Device::Load(const Kernel& kernel) const {
  return std::make_shared<const LoadedKernel>(kernel, config_);
}

namespace {

constexpr uint64_t kScratchAlignment = 4096;

// Addresses of every HBM tensor: the caller's bindings, or scratch at the top
// of device memory for the rest (initialised from their init spec).
std::vector<uint64_t> BindHbm(const Kernel& k, const std::map<std::string, uint64_t>& bindings, HbmMemory& hbm,
                              bool init_scratch, std::map<std::string, uint64_t>* scratch_addresses) {
  for (const auto& [name, addr] : bindings) {
    const int t = k.FindTensor(name);
    if (t < 0 || k.tensors[t].space != MemSpace::kHbm) {
      throw SimError("kernel '" + k.name + "': binding for '" + name + "', which is not an HBM tensor of the kernel");
    }
  }
  std::vector<uint64_t> addr(k.tensors.size(), 0);
  uint64_t scratch_top = hbm.capacity();
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    const TensorDecl& t = k.tensors[i];
    if (t.space != MemSpace::kHbm) continue;
    const uint64_t bytes = static_cast<uint64_t>(t.NumElements() * DTypeSize(t.dtype));
    auto it = bindings.find(t.name);
    if (it != bindings.end()) {
      if (it->second > hbm.capacity() || bytes > hbm.capacity() - it->second) {
        std::ostringstream os;
        os << "kernel '" << k.name << "': tensor '" << t.name << "' bound at 0x" << std::hex << it->second
           << " runs past the end of device memory (0x" << hbm.capacity() << ")";
        throw SimError(os.str());
      }
      addr[i] = it->second;
      continue;
    }
    if (bytes > scratch_top) throw SimError("kernel '" + k.name + "': HBM scratch for '" + t.name + "' exceeds device memory");
    scratch_top = (scratch_top - bytes) / kScratchAlignment * kScratchAlignment;
    addr[i] = scratch_top;
    if (init_scratch) InitializeTensor(t, addr[i], hbm);
    (*scratch_addresses)[t.name] = addr[i];
  }
  return addr;
}

}  // namespace

ExecutionResult Device::Execute(const LoadedKernel& kernel, const std::map<std::string, uint64_t>& bindings) {
  if (kernel.config_name() != config_.name) {
    throw SimError("kernel '" + kernel.kernel().name + "' was loaded for config '" + kernel.config_name() +
                   "' but this device is '" + config_.name + "'");
  }
  const Kernel& k = kernel.kernel();
  std::map<std::string, uint64_t> scratch;
  const std::vector<uint64_t> addresses = BindHbm(k, bindings, *hbm_, !timing_only_, &scratch);
  if (timing_only_) {
    ExecutionResult result = ExecuteTimingOnly(config_, kernel, addresses);
    result.scratch_addresses = std::move(scratch);
    return result;
  }
  for (const TensorDecl& t : k.tensors) {
    if (t.space != MemSpace::kHbm)
      onchip_->Clear(t.space, t.partition_offset, t.FreeElements() * DTypeSize(t.dtype), t.shape[0]);
  }
  ExecContext ctx{k, *onchip_, *hbm_, addresses, {}};
  ExecutionResult result = SimHost::Get().Run(config_, kernel, ctx);
  result.scratch_addresses = std::move(scratch);
  return result;
}

ExecutionResult Device::Execute(const Kernel& kernel, const std::map<std::string, uint64_t>& bindings) {
  return Execute(*Load(kernel), bindings);
}

}  // namespace nsim
