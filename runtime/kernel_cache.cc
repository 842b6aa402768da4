#include "runtime/kernel_cache.h"

namespace nsim {
namespace rt {

KernelRef KernelCache::Find(uint64_t hash, uint64_t config_hash) {
  auto it = entries_.find({hash, config_hash});
  if (it == entries_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  return it->second;
}

void KernelCache::Insert(KernelRef handle) {
  auto key = std::make_pair(handle->hash, handle->config_hash);
  entries_[std::move(key)] = std::move(handle);
}

KernelCacheStats KernelCache::stats() const {
  return KernelCacheStats{hits_, misses_, static_cast<int64_t>(entries_.size())};
}

}  // namespace rt
}  // namespace nsim
