#include "sim/kernel/line_template.h"

#include "sim/base/error.h"

namespace nsim {

AccessPattern& FieldOf(Instruction& in, LineTemplate::Field f) {
  switch (f) {
    case LineTemplate::Field::kDst: return in.dst;
    case LineTemplate::Field::kSrc0: return in.src0;
    case LineTemplate::Field::kSrc1: return in.src1;
    case LineTemplate::Field::kAcc: return in.acc;
    case LineTemplate::Field::kScalar0: return in.scalar0.ap;
    case LineTemplate::Field::kScalar1: return in.scalar1.ap;
  }
  throw SimError("unreachable: an access-pattern field without a name");
}

LineTemplate::Field FieldAt(const Instruction& in, const AccessPattern* ap) {
  using F = LineTemplate::Field;
  for (F f : {F::kDst, F::kSrc0, F::kSrc1, F::kAcc, F::kScalar0, F::kScalar1}) {
    if (&FieldOf(const_cast<Instruction&>(in), f) == ap) return f;
  }
  throw SimError("unreachable: an operand outside the instruction's fields");
}

namespace {

// The parser's Cursor::Fail and Cursor::Located, for a line read without a cursor.
[[noreturn]] void Fail(const std::string& file, int line, const std::string& msg) {
  throw SimError(file + ":" + std::to_string(line) + ": " + msg);
}

int64_t Evaluate(const LineTemplate& t, const LineTemplate::Hole& h, const std::string& file,
                 const ProgramIndex& program, const LoopVars& vars) {
  std::string error;
  const std::optional<int64_t> v = h.expr.Eval(program, vars, &error);
  if (!v) Fail(file, t.line, "in " + std::string(h.what) + ": " + error);
  return *v;
}

AccessPattern Build(const LineTemplate& t, const LineTemplate::Operand& op, const Kernel& k, const std::string& file,
                    const ProgramIndex& program, const LoopVars& vars) {
  if (op.explicit_ap) {
    const int64_t offset = Evaluate(t, op.holes[0].second, file, program, vars);
    try {
      return Ap(k, op.tensor, offset, op.dims);
    } catch (const SimError& e) {
      Fail(file, t.line, e.what());
    }
  }
  std::vector<SliceSpec> idx = op.idx;
  for (const auto& [bound, hole] : op.holes) {
    const int64_t v = Evaluate(t, hole, file, program, vars);
    SliceSpec& s = idx[bound / 3];
    (bound % 3 == 0 ? s.start : bound % 3 == 1 ? s.stop : s.step) = v;
  }
  try {
    return Slice(k, op.tensor, idx);
  } catch (const SimError& e) {
    Fail(file, t.line, e.what());
  }
}

}  // namespace

Instruction Instantiate(const LineTemplate& t, const Kernel& k, const std::string& file, const ProgramIndex& program,
                        const LoopVars& vars) {
  Instruction in = t.base;
  for (const auto& step : t.steps) {
    if (const auto* op = std::get_if<LineTemplate::Operand>(&step)) {
      FieldOf(in, op->field) = Build(t, *op, k, file, program, vars);
      continue;
    }
    const auto& w = std::get<LineTemplate::Wait>(step);
    const int64_t v = Evaluate(t, w.hole, file, program, vars);
    if (v < 0) Fail(file, t.line, "the wait value must be >= 0, found '" + std::to_string(v) + "'");
    in.waits[w.index].value = v;
  }
  return in;
}

}  // namespace nsim
