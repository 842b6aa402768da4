#include "sim/kernel/index_expr.h"

#include <cctype>

#include "sim/kernel/compiled_index_expr.h"

namespace nsim {
namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

// Recursive descent over one expression; the first error stops it. Emits
// the postfix steps of a CompiledIndexExpr as it goes (when given one).
class IndexExprReader {
 public:
  using Op = CompiledIndexExpr::Op;
  IndexExprReader(const std::string& text, size_t pos, const ProgramIndex& program, const LoopVars& loops,
                  CompiledIndexExpr* out)
      : text_(text), pos_(pos), program_(program), loops_(loops), out_(out) {}

  std::optional<int64_t> Run(size_t* end, std::string* error) {
    const int64_t v = Sum();
    if (!error_.empty()) {
      *error = error_;
      return std::nullopt;
    }
    *end = pos_;
    return v;
  }

 private:
  int64_t Sum() {
    int64_t v = Product();
    while (error_.empty()) {
      const char op = Peek();
      if (op != '+' && op != '-') break;
      ++pos_;
      const int64_t r = Product();
      Emit(op == '+' ? Op::kAdd : Op::kSub);
      if (op == '+' ? __builtin_add_overflow(v, r, &v) : __builtin_sub_overflow(v, r, &v)) Error("overflow");
    }
    return v;
  }
  int64_t Product() {
    int64_t v = Factor();
    while (error_.empty()) {
      const char op = Peek();
      if (op != '*' && op != '/' && op != '%') break;
      ++pos_;
      const int64_t r = Factor();
      Emit(op == '*' ? Op::kMul : op == '/' ? Op::kDiv : Op::kMod);
      if (op == '*') {
        if (__builtin_mul_overflow(v, r, &v)) Error("overflow");
      } else if (r == 0) {
        Error("division by zero");
      } else {
        v = op == '/' ? v / r : v % r;
      }
    }
    return v;
  }
  int64_t Factor() {
    const char c = Peek();
    if (c == '-') {
      ++pos_;
      const int64_t v = -Factor();
      Emit(Op::kNeg);
      return v;
    }
    if (c == '(') {
      ++pos_;
      const int64_t v = Sum();
      if (Peek() != ')') return Error("expected ')'");
      ++pos_;
      return v;
    }
    size_t e = pos_;
    while (e < text_.size() && IsWordChar(text_[e])) ++e;
    const std::string word = text_.substr(pos_, e - pos_);
    pos_ = e;
    if (word == "program_id") return Emit(Op::kProgramId), program_.id;
    if (word == "num_programs") return Emit(Op::kNumPrograms), program_.count;
    if (const LoopVar* var = FindLoopVar(loops_, word)) return Emit(Op::kVar, var - loops_.data()), var->value;
    if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos || word.size() > 18) {
      return Error(std::string("expected an integer, program_id") + (loops_.empty() ? " or " : ", ") +
                   "num_programs" + (loops_.empty() ? "" : " or a loop variable") + ", found '" + word + "'");
    }
    const int64_t v = std::stoll(word);
    Emit(Op::kConst, v);
    return v;
  }
  void Emit(Op op, int64_t value = 0) {
    if (out_ != nullptr) out_->steps_.push_back({op, value});
  }
  char Peek() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  int64_t Error(const std::string& what) {
    if (error_.empty()) error_ = what;
    return 0;
  }

  const std::string& text_;
  size_t pos_;
  const ProgramIndex& program_;
  const LoopVars& loops_;
  CompiledIndexExpr* out_;
  std::string error_;
};

std::optional<int64_t> CompiledIndexExpr::Eval(const ProgramIndex& program, const LoopVars& loops,
                                               std::string* error) const {
  int64_t small[32];
  std::vector<int64_t> large;
  int64_t* stack = small;
  if (steps_.size() > 32) {
    large.resize(steps_.size());
    stack = large.data();
  }
  size_t n = 0;
  for (const Step& s : steps_) {
    switch (s.op) {
      case Op::kConst: stack[n++] = s.value; continue;
      case Op::kVar: stack[n++] = loops[static_cast<size_t>(s.value)].value; continue;
      case Op::kProgramId: stack[n++] = program.id; continue;
      case Op::kNumPrograms: stack[n++] = program.count; continue;
      case Op::kNeg: stack[n - 1] = -stack[n - 1]; continue;
      default: break;
    }
    const int64_t r = stack[--n];
    int64_t& v = stack[n - 1];
    bool overflow = false;
    if (s.op == Op::kAdd) overflow = __builtin_add_overflow(v, r, &v);
    if (s.op == Op::kSub) overflow = __builtin_sub_overflow(v, r, &v);
    if (s.op == Op::kMul) overflow = __builtin_mul_overflow(v, r, &v);
    if ((s.op == Op::kDiv || s.op == Op::kMod) && r == 0) {
      *error = "division by zero";
      return std::nullopt;
    }
    if (s.op == Op::kDiv) v /= r;
    if (s.op == Op::kMod) v %= r;
    if (overflow) {
      *error = "overflow";
      return std::nullopt;
    }
  }
  return stack[0];
}

const LoopVar* FindLoopVar(const LoopVars& loops, const std::string& name) {
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    if (it->name == name) return &*it;
  }
  return nullptr;
}

bool IndexExprFollows(const std::string& text, size_t pos, const LoopVars& loops) {
  if (!loops.empty()) {
    size_t e = pos;
    while (e < text.size() && IsWordChar(text[e])) ++e;
    if (FindLoopVar(loops, text.substr(pos, e - pos))) return true;
  }
  int depth = 0;
  for (size_t p = pos; p < text.size(); ++p) {
    const char c = text[p];
    if (depth == 0 && (c == ',' || c == ':' || c == ']')) return false;
    if (c == '(') ++depth;
    if (c == ')' && --depth < 0) return false;
    if (c == '*' || c == '/' || c == '%' || c == '(') return true;
    if ((c == '+' || c == '-') && p > pos) return true;
    if (text.compare(p, 10, "program_id") == 0 || text.compare(p, 12, "num_programs") == 0) return true;
  }
  return false;
}

std::optional<int64_t> EvalIndexExpr(const std::string& text, size_t* pos, const ProgramIndex& program,
                                     std::string* error, const LoopVars& loops) {
  return IndexExprReader(text, *pos, program, loops, nullptr).Run(pos, error);
}

std::optional<int64_t> CompileIndexExpr(const std::string& text, size_t* pos, const ProgramIndex& program,
                                        std::string* error, const LoopVars& loops, CompiledIndexExpr* compiled) {
  return IndexExprReader(text, *pos, program, loops, compiled).Run(pos, error);
}

}  // namespace nsim
