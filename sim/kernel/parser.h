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

// Most loop iterations plus instructions they unroll to (2^28, 2.7x the
// 10^8-instruction benchmark of docs/simulator-speed.md): beyond it a loop is a
// runaway, not a kernel.
constexpr int64_t kMaxLoopWork = int64_t{1} << 28;

// SPMD: `program` gives program_id and num_programs (index_expr.h).
// `max_loop_work`: the limit on loop iterations and the instructions inside
// loops (the fuzzers lower it to stay fast).
Kernel ParseKernel(const std::string& text, const std::string& filename, const ProgramIndex& program,
                   int64_t max_loop_work = kMaxLoopWork);
// The `programs` copies of a grid launch, program_id 0..programs-1.
std::vector<Kernel> ParseGrid(const std::string& text, const std::string& filename, int64_t programs);

}  // namespace nsim
