#include "sim/model/hbm_binding.h"

#include <sstream>

#include "sim/base/error.h"
#include "sim/model/loaded_kernel.h"
#include "sim/model/tensor_init.h"

namespace nsim {
namespace {
constexpr uint64_t kScratchAlignment = 4096;
}

void CheckLoadedFor(const LoadedKernel& kernel, const HardwareConfig& config, uint64_t hash, const char* what) {
  if (kernel.config_hash() == hash) return;
  const bool same_name = kernel.config_name() == config.name;
  throw SimError("kernel '" + kernel.kernel().name + "' was loaded for config '" + kernel.config_name() + "' but this " +
                 what + " is '" + config.name + "'" +
                 (same_name ? " with different values (other overrides); load it on this " + std::string(what) : ""));
}

std::vector<uint64_t> BindHbm(const Kernel& k, const std::map<std::string, uint64_t>& bindings, HbmMemory& hbm,
                              uint64_t scratch_top, std::map<std::string, uint64_t>* scratch_addresses,
                              bool init_scratch) {
  for (const auto& [name, addr] : bindings) {
    const int t = k.FindTensor(name);
    if (t < 0 || k.tensors[t].space != MemSpace::kHbm) {
      throw SimError("kernel '" + k.name + "': binding for '" + name + "', which is not an HBM tensor of the kernel");
    }
  }
  std::vector<uint64_t> addr(k.tensors.size(), 0);
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

}  // namespace nsim
