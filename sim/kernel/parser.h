#pragma once
// Reads kernels in the text format of docs/kernel-format.md. Every problem
// throws SimError("FILE:LINE: what, naming the offending token").
#include <string>
#include <vector>

#include "sim/kernel/index_expr.h"
#include "sim/kernel/kernel.h"

namespace nsim {

// `filename` only labels error messages.
Kernel ParseKernel(const std::string& text, const std::string& filename = "<kernel>");
Kernel LoadKernelFile(const std::string& path);
std::string ReadKernelFile(const std::string& path);

// SPMD: `program` gives program_id and num_programs (index_expr.h).
Kernel ParseKernel(const std::string& text, const std::string& filename, const ProgramIndex& program);
// The `programs` copies of a grid launch, program_id 0..programs-1.
std::vector<Kernel> ParseGrid(const std::string& text, const std::string& filename, int64_t programs);

}  // namespace nsim
