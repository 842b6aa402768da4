#pragma once
// The per-kernel capture files of DEVICE mode, paired by the kernel hash like
// Neuron's NEFF/NTFF: <hash>.neff holds the kernel text (our NEFF) and
// <hash>.ntff the instruction trace of its first captured execution, as JSON
// rendered from the same slices the trace shows.
#include <cstdint>
#include <string>

#include "profiler/events.h"

namespace nsim {
namespace prof {

std::string NeffFileName(uint64_t kernel_hash);  // "<hash>.neff", hash in decimal
std::string NtffFileName(uint64_t kernel_hash);  // "<hash>.ntff"
std::string NtffText(const DeviceExecution& exec);

}  // namespace prof
}  // namespace nsim
