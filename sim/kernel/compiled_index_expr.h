#pragma once
// An index expression compiled while it is read (internal to sim/kernel: a
// loop-body line's, line_template.h): the arithmetic of EvalIndexExpr as
// postfix steps over constants, program_id, num_programs and loop variables
// by their position in the LoopVars it was read with, evaluated again at
// other values without reading the text. Its errors are the text's: the
// first division by zero or overflow in evaluation order.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/kernel/index_expr.h"

namespace nsim {

class CompiledIndexExpr {
 public:
  bool empty() const { return steps_.empty(); }
  // `loops` must bind the variables the text was read with, in the same positions.
  std::optional<int64_t> Eval(const ProgramIndex& program, const LoopVars& loops, std::string* error) const;

 private:
  friend class IndexExprReader;
  enum class Op : uint8_t { kConst, kVar, kProgramId, kNumPrograms, kNeg, kAdd, kSub, kMul, kDiv, kMod };
  struct Step {
    Op op;
    int64_t value;  // kConst: the constant; kVar: the variable's position in LoopVars
  };
  std::vector<Step> steps_;
};

// EvalIndexExpr, compiling the expression into `compiled` as it reads it.
std::optional<int64_t> CompileIndexExpr(const std::string& text, size_t* pos, const ProgramIndex& program,
                                        std::string* error, const LoopVars& loops, CompiledIndexExpr* compiled);

}  // namespace nsim
