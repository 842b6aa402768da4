#include "backend/function_schema.h"

#include <cctype>

#include "sim/base/error.h"

namespace nsim {
namespace at {
namespace {

struct TypeName {
  const char* spelling;
  ArgType type;
};
// Order matches ArgType (ToString indexes it).
constexpr TypeName kTypes[] = {
    {"Tensor", ArgType::Tensor},         {"Tensor?", ArgType::OptionalTensor},
    {"Scalar", ArgType::Scalar},         {"Scalar?", ArgType::OptionalScalar},
    {"float", ArgType::Float},           {"float?", ArgType::OptionalFloat},
    {"int", ArgType::Int},               {"int?", ArgType::OptionalInt},
    {"bool", ArgType::Bool},             {"int[]", ArgType::IntList},
    {"int[]?", ArgType::OptionalIntList}, {"ScalarType", ArgType::ScalarType},
    {"ScalarType?", ArgType::OptionalScalarType}, {"Device", ArgType::Device},
    {"Device?", ArgType::OptionalDevice}, {"str", ArgType::String},
    {"Tensor[]", ArgType::TensorList},
};

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

[[noreturn]] void Fail(const std::string& text, const std::string& why) {
  throw SimError("invalid schema '" + text + "': " + why);
}

// Splits on commas outside (), [] and quotes.
std::vector<std::string> SplitTopLevel(const std::string& s) {
  std::vector<std::string> parts;
  int depth = 0;
  bool quoted = false;
  std::string cur;
  for (char c : s) {
    if (c == '\'') quoted = !quoted;
    if (!quoted && (c == '(' || c == '[')) ++depth;
    if (!quoted && (c == ')' || c == ']')) --depth;
    if (c == ',' && depth == 0 && !quoted) {
      parts.push_back(Trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!Trim(cur).empty()) parts.push_back(Trim(cur));
  return parts;
}

// "Tensor(a!)" -> type Tensor, is_write; "int[1]?" -> int[]?.
ArgType ParseType(std::string t, bool* is_write, const std::string& text) {
  const size_t paren = t.find('(');
  if (paren != std::string::npos) {
    const size_t close = t.find(')', paren);
    if (close == std::string::npos) Fail(text, "unbalanced alias annotation in '" + t + "'");
    *is_write = t.find('!', paren) < close;
    t.erase(paren, close - paren + 1);
  }
  const size_t bracket = t.find('[');
  if (bracket != std::string::npos) {
    const size_t close = t.find(']', bracket);
    if (close == std::string::npos) Fail(text, "unbalanced '[' in '" + t + "'");
    t.erase(bracket + 1, close - bracket - 1);  // drop a fixed size: int[1] -> int[]
  }
  for (const TypeName& n : kTypes) {
    if (t == n.spelling) return n.type;
  }
  Fail(text, "unknown type '" + t + "'");
}

Argument ParseArgument(const std::string& decl, bool kwarg_only, const std::string& text) {
  Argument a;
  std::string body = decl;
  const size_t eq = decl.find('=');
  if (eq != std::string::npos) {
    a.default_value = Trim(decl.substr(eq + 1));
    body = Trim(decl.substr(0, eq));
  }
  const size_t space = body.rfind(' ');
  const std::string type = space == std::string::npos ? body : Trim(body.substr(0, space));
  if (space != std::string::npos) a.name = Trim(body.substr(space + 1));
  a.type = ParseType(type, &a.is_write, text);
  a.kwarg_only = kwarg_only;
  return a;
}

std::vector<Argument> ParseArguments(const std::string& list, const std::string& text) {
  std::vector<Argument> args;
  bool kwarg_only = false;
  for (const std::string& part : SplitTopLevel(list)) {
    if (part == "*") {
      kwarg_only = true;
      continue;
    }
    args.push_back(ParseArgument(part, kwarg_only, text));
  }
  return args;
}

}  // namespace

const char* ToString(ArgType t) { return kTypes[static_cast<int>(t)].spelling; }

FunctionSchema::FunctionSchema(std::string ns, std::string name, std::string overload,
                               std::vector<Argument> arguments, std::vector<Argument> returns)
    : ns_(std::move(ns)),
      name_(std::move(name)),
      overload_(std::move(overload)),
      qualified_(ns_ + "::" + name_),
      full_(overload_.empty() ? qualified_ : qualified_ + "." + overload_),
      arguments_(std::move(arguments)),
      returns_(std::move(returns)) {}

std::string FunctionSchema::str() const {
  std::string s = name_ + (overload_.empty() ? "" : "." + overload_) + "(";
  bool kw = false;
  for (size_t i = 0; i < arguments_.size(); ++i) {
    const Argument& a = arguments_[i];
    if (i) s += ", ";
    if (a.kwarg_only && !kw) {
      s += "*, ";
      kw = true;
    }
    s += std::string(ToString(a.type)) + " " + a.name;
    if (a.default_value) s += "=" + *a.default_value;
  }
  s += ") -> ";
  if (returns_.size() == 1) return s + ToString(returns_[0].type);
  s += "(";
  for (size_t i = 0; i < returns_.size(); ++i) s += (i ? ", " : "") + std::string(ToString(returns_[i].type));
  return s + ")";
}

FunctionSchema ParseSchema(const std::string& ns, const std::string& text) {
  const size_t open = text.find('(');
  const size_t arrow = text.rfind("->");
  if (open == std::string::npos || arrow == std::string::npos || arrow < open) {
    Fail(text, "expected 'name(args) -> returns'");
  }
  const size_t close = text.rfind(')', arrow);
  if (close == std::string::npos || close < open) Fail(text, "missing ')' before '->'");
  const std::string full = Trim(text.substr(0, open));
  const size_t dot = full.find('.');
  const std::string name = full.substr(0, dot);
  const std::string overload = dot == std::string::npos ? "" : full.substr(dot + 1);
  if (name.empty()) Fail(text, "empty operator name");

  std::string ret = Trim(text.substr(arrow + 2));
  if (!ret.empty() && ret.front() == '(' && ret.back() == ')') ret = ret.substr(1, ret.size() - 2);
  std::vector<Argument> returns = ParseArguments(ret, text);
  for (const Argument& r : returns) {
    if (r.type != ArgType::Tensor) Fail(text, "only Tensor returns are supported");
  }
  return FunctionSchema(ns, name, overload,
                        ParseArguments(text.substr(open + 1, close - open - 1), text),
                        std::move(returns));
}

}  // namespace at
}  // namespace nsim
