#include "sim/model/timing_run.h"

#include <memory>

#include "sim/base/error.h"
#include "sim/memory/hbm.h"
#include "sim/memory/onchip_memory.h"
#include "sim/model/run_alone.h"

namespace nsim {
namespace {

// The on-chip memory a timing-only run binds but never touches, kept per
// thread for the next run of the same shape: allocating tens of MB per run
// is not free (once glibc raised its mmap threshold, calloc zero-fills them).
OnChipMemory& UntouchedOnChip(const MemoryParams& p) {
  struct Cached {
    int64_t partitions = -1, sbuf = -1, banks = -1, bank_bytes = -1;
    std::unique_ptr<OnChipMemory> memory;
  };
  thread_local Cached cached;
  if (!cached.memory || cached.partitions != p.partitions || cached.sbuf != p.sbuf_bytes_per_partition ||
      cached.banks != p.psum_banks || cached.bank_bytes != p.psum_bank_bytes) {
    cached.memory.reset();
    cached.memory = std::make_unique<OnChipMemory>(p);
    cached.partitions = p.partitions;
    cached.sbuf = p.sbuf_bytes_per_partition;
    cached.banks = p.psum_banks;
    cached.bank_bytes = p.psum_bank_bytes;
  }
  return *cached.memory;
}

}  // namespace

BoundGrid UntouchedBinding(const HardwareConfig& config, const Kernel& kernel, std::vector<uint64_t> hbm_address,
                           bool record_dma_pieces) {
  thread_local HbmMemory untouched_hbm(0);  // never touched: nothing is computed
  BoundGrid bound;
  bound.addresses.push_back(hbm_address.empty() ? std::vector<uint64_t>(kernel.tensors.size(), 0)
                                                : std::move(hbm_address));
  bound.contexts.push_back(std::make_unique<ExecContext>(
      ExecContext{kernel, UntouchedOnChip(config.memory), untouched_hbm, bound.addresses.front(), {}}));
  bound.contexts.front()->compute_values = false;
  bound.contexts.front()->record_dma_pieces = record_dma_pieces;
  return bound;
}

ExecutionResult ExecuteTimingOnly(const HardwareConfig& config, const LoadedKernel& kernel,
                                  const std::vector<uint64_t>& hbm_address, const ProgressFn& progress,
                                  bool record_dma_pieces) {
  if (kernel.config_name() != config.name) {
    throw SimError("kernel '" + kernel.kernel().name + "' was loaded for config '" + kernel.config_name() +
                   "', not '" + config.name + "'");
  }
  return RunAlone(config, kernel, UntouchedBinding(config, kernel.kernel(), hbm_address, record_dma_pieces),
                  /*allow_races=*/true, progress);
}

}  // namespace nsim
