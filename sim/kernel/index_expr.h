#pragma once
// SPMD: which copy of a kernel is being read. A kernel launched on a grid of
// N cores is read once per core with program_id 0..N-1 (num_programs = N),
// so its indices can select that core's part of a shared HBM tensor:
//   sync: dma_copy xt, x[program_id * 4:(program_id + 1) * 4]
// Outside a grid a kernel is program 0 of 1.
#include <cstdint>
#include <optional>
#include <string>

namespace nsim {

struct ProgramIndex {
  int64_t id = 0;     // program_id
  int64_t count = 1;  // num_programs
};

// True if the index text starting at `pos` (up to the next ',', ':' or ']'
// outside parentheses) is an expression rather than a plain integer.
bool IndexExprFollows(const std::string& text, size_t pos);

// Evaluates an integer expression at `pos` over integers, program_id and
// num_programs with + - * / % and parentheses (usual precedence, / and %
// truncate), advancing `pos` past it. On a malformed expression, a division
// by zero or an overflow returns nullopt and sets `error`.
std::optional<int64_t> EvalIndexExpr(const std::string& text, size_t* pos, const ProgramIndex& program,
                                     std::string* error);

}  // namespace nsim
