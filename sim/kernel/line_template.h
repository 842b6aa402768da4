#pragma once
// A loop-body line compiled once (issue 26 stage 2; internal to sim/kernel):
// the instruction as the parser read it at its first iteration, and where
// each index expression over the loop variables lands (a slice bound or
// .ap offset of an operand, a wait value). Every later iteration evaluates
// only those expressions and rebuilds only those operands, instead of reading
// the line's text again. The expressions are evaluated in the text's order,
// which is the order the parser evaluates them in, so an iteration's first
// error is the one the parser would raise, word for word.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "sim/kernel/builder.h"
#include "sim/kernel/compiled_index_expr.h"
#include "sim/kernel/index_expr.h"
#include "sim/kernel/kernel.h"

namespace nsim {

struct LineTemplate {
  // The access-pattern fields of an Instruction an operand may land in.
  enum class Field : uint8_t { kDst, kSrc0, kSrc1, kAcc, kScalar0, kScalar1 };
  struct Hole {
    CompiledIndexExpr expr;
    const char* what = "";  // what the parser's errors call it ("an index", ...)
  };
  // An operand with at least one expression in it.
  struct Operand {
    Field field = Field::kDst;
    int tensor = -1;
    bool explicit_ap = false;    // .ap(OFFSET, [[STRIDE, SIZE], ...]) rather than a slice
    std::vector<SliceSpec> idx;  // a slice's indices at the first iteration
    int64_t offset = 0;          // an .ap's offset and dims
    std::vector<ApDim> dims;
    // Slice: which bound (3 * index + 0 start, 1 stop, 2 step); .ap: 0, its offset.
    std::vector<std::pair<uint32_t, Hole>> holes;
  };
  struct Wait {
    size_t index = 0;  // in Instruction::waits
    Hole hole;
  };
  Instruction base;  // as read at the first iteration
  std::string text;  // the line as written
  int line = 0;
  std::vector<std::variant<Operand, Wait>> steps;  // in the text's order
};

// Where field `f` of `in` is.
AccessPattern& FieldOf(Instruction& in, LineTemplate::Field f);
// The field `ap` is (it must be one of the fields of `in`).
LineTemplate::Field FieldAt(const Instruction& in, const AccessPattern* ap);

// The instruction of `t` with the loop variables at `vars`. Errors read
// "FILE:LINE: ..." as the parser's do.
Instruction Instantiate(const LineTemplate& t, const Kernel& k, const std::string& file, const ProgramIndex& program,
                        const LoopVars& vars);

}  // namespace nsim
