#include "sim/kernel/index_expr.h"

#include <cctype>

namespace nsim {
namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Recursive descent over one expression; the first error stops it.
class Evaluator {
 public:
  Evaluator(const std::string& text, size_t pos, const ProgramIndex& program, const LoopVars& loops)
      : text_(text), pos_(pos), program_(program), loops_(loops) {}

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
      return -Factor();
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
    if (word == "program_id") return program_.id;
    if (word == "num_programs") return program_.count;
    if (const LoopVar* var = FindLoopVar(loops_, word)) return var->value;
    if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos || word.size() > 18) {
      return Error(std::string("expected an integer, program_id") + (loops_.empty() ? " or " : ", ") +
                   "num_programs" + (loops_.empty() ? "" : " or a loop variable") + ", found '" + word + "'");
    }
    return std::stoll(word);
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
  std::string error_;
};

}  // namespace

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
  return Evaluator(text, *pos, program, loops).Run(pos, error);
}

}  // namespace nsim
