#pragma once
// SPMD: which copy of a kernel is being read. A kernel launched on a grid of
// N cores is read once per core with program_id 0..N-1 (num_programs = N),
// so its indices can select that core's part of a shared HBM tensor:
//   sync: dma_copy xt, x[program_id * 4:(program_id + 1) * 4]
// Outside a grid a kernel is program 0 of 1.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nsim {

struct ProgramIndex {
  int64_t id = 0;     // program_id
  int64_t count = 1;  // num_programs
};

// The induction variables of the loops enclosing a kernel line
// (docs/kernel-format.md "Loops"), outermost first, at their current values.
struct LoopVar {
  std::string name;
  int64_t value = 0;
};
using LoopVars = std::vector<LoopVar>;
const LoopVar* FindLoopVar(const LoopVars& loops, const std::string& name);  // nullptr if unbound

// True if the index text starting at `pos` (up to the next ',', ':' or ']'
// outside parentheses) is an expression rather than a plain integer: it has
// an operator, program_id / num_programs, or starts with a loop variable.
bool IndexExprFollows(const std::string& text, size_t pos, const LoopVars& loops = {});

// Evaluates an integer expression at `pos` over integers, program_id,
// num_programs and the loop variables `loops` with + - * / % and parentheses
// (usual precedence, / and % truncate), advancing `pos` past it. On a
// malformed expression, a division by zero or an overflow returns nullopt and
// sets `error`.
std::optional<int64_t> EvalIndexExpr(const std::string& text, size_t* pos, const ProgramIndex& program,
                                     std::string* error, const LoopVars& loops = {});

}  // namespace nsim
