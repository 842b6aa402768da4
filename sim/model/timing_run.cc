#include "sim/model/timing_run.h"

#include "sim/base/error.h"
#include "sim/model/hbm.h"
#include "sim/model/onchip_memory.h"
#include "sim/model/sim_host.h"

namespace nsim {

ExecutionResult ExecuteTimingOnly(const HardwareConfig& config, const LoadedKernel& kernel,
                                  const std::vector<uint64_t>& hbm_address, const ProgressFn& progress,
                                  bool record_dma_pieces) {
  if (kernel.config_name() != config.name) {
    throw SimError("kernel '" + kernel.kernel().name + "' was loaded for config '" + kernel.config_name() +
                   "', not '" + config.name + "'");
  }
  OnChipMemory onchip(config.memory);  // never touched (its pages are never even faulted in)
  HbmMemory hbm(0);                    // never touched: nothing is computed
  const std::vector<uint64_t> addresses =
      hbm_address.empty() ? std::vector<uint64_t>(kernel.kernel().tensors.size(), 0) : hbm_address;
  ExecContext ctx{kernel.kernel(), onchip, hbm, addresses, {}};
  ctx.compute_values = false;
  ctx.record_dma_pieces = record_dma_pieces;
  return SimHost::Get().Run(config, kernel, ctx, progress);
}

}  // namespace nsim
