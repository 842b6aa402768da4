#pragma once
// Content hash of a kernel: FNV-1a 64 over its canonical text (FormatKernel),
// so it ignores comments, line numbers and layout, and equal kernels hash
// equally in every process and on every machine.
#include <cstdint>
#include <string>

#include "sim/kernel/kernel.h"

namespace nsim {

uint64_t Fnv1a64(const std::string& bytes);
uint64_t KernelHash(const Kernel& k);

}  // namespace nsim
