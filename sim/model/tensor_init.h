#pragma once
// Fills an HBM tensor of a standalone kernel from its `init=` spec. The
// generators are fixed algorithms (SplitMix64, Box-Muller) so that values are
// the same on every platform and standard library.
#include <cstdint>

#include "sim/kernel/kernel.h"
#include "sim/memory/hbm.h"

namespace nsim {

void InitializeTensor(const TensorDecl& t, uint64_t address, HbmMemory& hbm);

}  // namespace nsim
