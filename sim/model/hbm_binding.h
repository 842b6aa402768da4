#pragma once
// Where a kernel's HBM tensors live for one execution: at the caller's
// bindings, or as scratch below a given top address (initialised from their
// `init`). Shared by Device (a core's own memory) and Chip (a core's share of
// the chip's memory).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/memory/hbm.h"

namespace nsim {

class LoadedKernel;

// Throws SimError unless `kernel` was loaded for a config with exactly these
// values (`hash` = ConfigContentHash(config)); `what` names the target.
void CheckLoadedFor(const LoadedKernel& kernel, const HardwareConfig& config, uint64_t hash, const char* what);

// Returns the address of every HBM tensor of `k` (0 for on-chip tensors).
// Unbound tensors are placed below `scratch_top`, aligned, initialised
// (unless `init_scratch` is false: a timing-only run reads no values), and
// listed in `scratch_addresses`. Throws SimError for a binding that names no
// HBM tensor or runs past the end of `hbm`.
std::vector<uint64_t> BindHbm(const Kernel& k, const std::map<std::string, uint64_t>& bindings, HbmMemory& hbm,
                              uint64_t scratch_top, std::map<std::string, uint64_t>* scratch_addresses,
                              bool init_scratch = true);

}  // namespace nsim
