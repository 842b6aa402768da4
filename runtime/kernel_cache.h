#pragma once
// Kernels loaded into the runtime of one NeuronCore, cached by content hash
// and hardware config: the framework asks for the same kernel on every call
// of an op, and only the first request pays for loading it (as a NEFF is
// loaded once and then executed many times). Only bookkeeping: the core does
// the loading and charges host.kernel_load on a miss.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "sim/model/loaded_kernel.h"

namespace nsim {
namespace rt {

// A kernel loaded on one core, ready for ExecuteAsync there.
struct KernelHandle {
  int core = 0;             // index of the NeuronCore it was loaded on
  uint64_t core_instance = 0;  // NeuronCoreDevice::instance() of that core (a core made after Reset differs)
  uint64_t hash = 0;        // KernelHash(); names <hash>.neff / <hash>.ntff in profiles
  std::string name;         // Kernel::name
  std::string config_name;  // the core's hardware config
  uint64_t config_hash = 0; // its identity: ConfigContentHash (two overrides of one file differ)
  std::shared_ptr<const LoadedKernel> loaded;
};
using KernelRef = std::shared_ptr<const KernelHandle>;

struct KernelCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t entries = 0;
};

class KernelCache {
 public:
  // The cached handle for (kernel hash, config content hash), or nullptr;
  // counts a hit or a miss.
  KernelRef Find(uint64_t hash, uint64_t config_hash);
  void Insert(KernelRef handle);
  KernelCacheStats stats() const;

 private:
  std::map<std::pair<uint64_t, uint64_t>, KernelRef> entries_;
  int64_t hits_ = 0, misses_ = 0;
};

}  // namespace rt
}  // namespace nsim
