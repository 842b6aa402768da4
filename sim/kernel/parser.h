#pragma once
// Reads kernels in the text format of docs/kernel-format.md. Every problem
// throws SimError("FILE:LINE: what, naming the offending token").
#include <string>

#include "sim/kernel/kernel.h"

namespace nsim {

// `filename` only labels error messages.
Kernel ParseKernel(const std::string& text, const std::string& filename = "<kernel>");
Kernel LoadKernelFile(const std::string& path);

}  // namespace nsim
