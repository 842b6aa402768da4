#pragma once
// A kernel copying `nbytes` from HBM tensor "src" to HBM tensor "dst" with
// one DMA transfer spread over the DMA engines: the device side of a
// neuron -> neuron copy of contiguous bytes. `nbytes` must be even (the
// smallest device element is 2 bytes).
#include <cstdint>

#include "sim/kernel/kernel.h"

namespace nsim {
namespace neuron {

Kernel HbmCopyKernel(uint64_t nbytes);

}  // namespace neuron
}  // namespace nsim
