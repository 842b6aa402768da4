#include "sim/model/timing_run.h"

#include <map>
#include <memory>
#include <string>

#include "sim/base/error.h"
#include "sim/memory/hbm.h"
#include "sim/memory/onchip_memory.h"
#include "sim/model/hbm_binding.h"
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

// Where Device::Execute would place the kernel's HBM tensors with no
// bindings: each in its own range, so the race check sees distinct tensors
// as distinct (all at 0, every pair of them would overlap).
std::vector<uint64_t> ScratchLayout(const HardwareConfig& config, const Kernel& kernel, HbmMemory& untouched) {
  std::map<std::string, uint64_t> scratch;
  return BindHbm(kernel, {}, untouched, static_cast<uint64_t>(config.memory.hbm_bytes), &scratch,
                 /*init_scratch=*/false);
}

}  // namespace

BoundGrid UntouchedBinding(const HardwareConfig& config, const Kernel& kernel, std::vector<uint64_t> hbm_address,
                           bool record_dma_pieces) {
  thread_local HbmMemory untouched_hbm(0);  // never touched: nothing is computed
  BoundGrid bound;
  bound.addresses.push_back(hbm_address.empty() ? ScratchLayout(config, kernel, untouched_hbm)
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
