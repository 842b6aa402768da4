#include "sim/kernel/parser.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <sstream>
#include <variant>

#include "sim/base/error.h"
#include "sim/kernel/builder.h"
#include "sim/kernel/line_template.h"
#include "sim/kernel/loop_stream.h"
#include "sim/kernel/syntax.h"

namespace nsim {
namespace {

using kernel_syntax::AttrDef;

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

// How to read one enum from its name, and what to list when the name is unknown.
template <typename E>
struct EnumSyntax {
  const char* what;  // "engine", "alu op", ...
  bool (*parse)(const std::string&, E*);
  const char* (*name)(E);
  int first, count;     // the values listed as known
  const char* aliases;  // accepted spellings besides the canonical names
};

constexpr int kNumDTypes = 4;  // DType has no count of its own
constexpr EnumSyntax<MemSpace> kMemSpaceSyntax{
    "memory space", ParseMemSpace, MemSpaceName, 0, kNumMemSpaces, ""};
constexpr EnumSyntax<DType> kDTypeSyntax{"dtype", ParseDType, DTypeName, 0, kNumDTypes, ""};
constexpr EnumSyntax<EngineId> kEngineSyntax{"engine", ParseEngine, EngineName, 0, kNumEngines, ""};
constexpr EnumSyntax<Opcode> kOpcodeSyntax{"opcode", ParseOpcode, OpcodeName, 0, kNumOpcodes, ""};
constexpr EnumSyntax<AluOp> kAluSyntax{"alu op", ParseAluOp, AluOpName, 1, kNumAluOps, ", sub, mul"};
constexpr EnumSyntax<ReduceOp> kReduceSyntax{"reduce op", ParseReduceOp, ReduceOpName, 0, kNumReduceOps, ""};
constexpr EnumSyntax<ActFunc> kActFuncSyntax{
    "activation function", ParseActFunc, ActFuncName, 0, kNumActFuncs, ", copy"};

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A cursor over one line (comment already stripped) that knows where it is,
// so every error it raises reads "FILE:LINE: ...".
class Cursor {
 public:
  Cursor(const std::string& file, int line, const std::string& text)
      : file_(file), line_(line), text_(text) {}

  int line() const { return line_; }
  const std::string& text() const { return text_; }

  [[noreturn]] void Fail(const std::string& msg) const {
    throw SimError(file_ + ":" + std::to_string(line_) + ": " + msg);
  }

  // Runs a builder call, locating its error at this line.
  template <typename F>
  auto Located(F&& f) const -> decltype(f()) {
    try {
      return f();
    } catch (const SimError& e) {
      Fail(e.what());
    }
  }

  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  void ExpectEnd() {
    if (!AtEnd()) Fail("unexpected " + Found());
  }
  // The next character, right here (no space skipped): `a[...]` must be written without a gap.
  bool ConsumeAdjacent(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool Consume(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  void Expect(const std::string& s, const std::string& context) {
    SkipSpace();
    if (text_.compare(pos_, s.size(), s) != 0) Fail("expected '" + s + "' " + context + ", found " + Found());
    pos_ += s.size();
  }

  // What an error message calls the text at the cursor.
  std::string Found() {
    if (AtEnd()) return "end of line";
    return Quoted(ScanToken(pos_));
  }

  std::string Ident(const std::string& what) {
    SkipSpace();
    if (pos_ >= text_.size() || !IsIdentStart(text_[pos_])) Fail("expected " + what + ", found " + Found());
    const size_t start = pos_;
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // An identifier followed by '=': the start of a key=value attribute.
  bool NextIsAttribute() {
    SkipSpace();
    size_t p = pos_;
    if (p >= text_.size() || !IsIdentStart(text_[p])) return false;
    while (p < text_.size() && IsIdentChar(text_[p])) ++p;
    while (p < text_.size() && std::isspace(static_cast<unsigned char>(text_[p]))) ++p;
    return p < text_.size() && text_[p] == '=';
  }

  // Whether a scalar operand here is a number rather than an access pattern.
  bool NextIsNumber() {
    SkipSpace();
    if (pos_ >= text_.size()) return false;
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.') return true;
    const std::string word = ScanToken(pos_);
    return word == "inf" || word == "nan";  // reserved: never names (IsIdentifier)
  }

  int64_t Integer(const std::string& what) {
    const std::string tok = NumberToken();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(tok.c_str(), &end, 10);
    if (tok.empty() || *end != '\0' || errno == ERANGE)
      Fail("expected " + what + " (an integer), found " + Shown(tok));
    return v;
  }

  // An integer, or an expression over program_id, num_programs (SPMD) and
  // loop variables; `compiled` (when given) receives an expression compiled
  // (and stays empty for a plain integer).
  int64_t Index(const std::string& what, const ProgramIndex& program, const LoopVars& loops,
                CompiledIndexExpr* compiled = nullptr) {
    SkipSpace();
    if (!IndexExprFollows(text_, pos_, loops)) return Integer(what);
    std::string error;
    const std::optional<int64_t> v = compiled != nullptr ? CompileIndexExpr(text_, &pos_, program, &error, loops, compiled)
                                                         : EvalIndexExpr(text_, &pos_, program, &error, loops);
    if (!v) Fail("in " + what + ": " + error);
    return *v;
  }

  uint64_t Unsigned(const std::string& what) {
    const std::string tok = NumberToken();
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(tok.c_str(), &end, 10);
    const bool signed_text = !tok.empty() && (tok[0] == '-' || tok[0] == '+');
    if (tok.empty() || signed_text || *end != '\0' || errno == ERANGE) {
      Fail("expected " + what + " (an unsigned 64-bit integer), found " + Shown(tok));
    }
    return v;
  }

  int64_t NonNegative(const std::string& what) {
    const int64_t v = Integer(what);
    if (v < 0) Fail(what + " must be >= 0, found '" + std::to_string(v) + "'");
    return v;
  }

  double Number(const std::string& what) {
    const std::string tok = NumberToken();
    char* end = nullptr;
    const double v = std::strtod(tok.c_str(), &end);
    if (tok.empty() || *end != '\0') Fail("expected " + what + " (a number), found " + Shown(tok));
    return v;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // A run of word characters (letters, digits, '_', '.', signs) or else one
  // punctuation character, starting at `p`.
  std::string ScanToken(size_t p) const {
    auto word = [](char c) { return IsIdentChar(c) || c == '.' || c == '+' || c == '-'; };
    size_t e = p;
    while (e < text_.size() && word(text_[e])) ++e;
    return text_.substr(p, std::max<size_t>(e - p, 1));
  }

  // Sign, then word characters; a sign is part of the number again only
  // right after an exponent letter ("1e-6", "0x1p+3").
  std::string NumberToken() {
    SkipSpace();
    const size_t start = pos_;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      const char prev = pos_ > start ? text_[pos_ - 1] : ' ';
      const bool exp_sign =
          (c == '+' || c == '-') && (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P');
      if (!IsIdentChar(c) && c != '.' && !exp_sign) break;
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  std::string Shown(const std::string& tok) { return tok.empty() ? Found() : Quoted(tok); }

  const std::string& file_;
  const int line_;
  const std::string& text_;
  size_t pos_ = 0;
};

template <typename E>
E ParseEnum(const Cursor& c, const std::string& word, const EnumSyntax<E>& syntax) {
  E value{};
  if (syntax.parse(word, &value)) return value;
  std::string known;
  for (int i = syntax.first; i < syntax.count; ++i) {
    known += std::string(i > syntax.first ? ", " : "") + syntax.name(static_cast<E>(i));
  }
  c.Fail("unknown " + std::string(syntax.what) + " " + Quoted(word) + " (known: " + known + syntax.aliases +
         ")");
}

class Parser {
 public:
  Parser(const std::string& filename, const ProgramIndex& program, int64_t max_work, bool count_only = false)
      : file_(filename), program_(program), max_work_(max_work), count_only_(count_only) {}
  // Reads the lines of a kernel whose declarations are `decls` (a StreamCursor's instructions).
  Parser(const std::string& filename, const ProgramIndex& program, Kernel decls)
      : file_(filename), program_(program), k_(std::move(decls)), named_(true), max_work_(0) {}

  // What a streamed parse (ParseStreamed) learnt: the instructions each engine's stream holds.
  const std::array<int64_t, kNumEngines>& counts() const { return counts_; }
  LoopVars& vars() { return vars_; }

  struct LoopHeader {
    std::string var;
    int64_t start = 0, stop = 0, step = 1;
  };
  // `loop VAR in START:STOP[:STEP] {` at line `number`, over the loop variables bound now.
  LoopHeader ReadLoopHeader(int number, const std::string& text) {
    Cursor c(file_, number, text);
    return ReadLoopHeader(c);
  }
  // One instruction of engine `engine` (its line without the `ENGINE:` prefix), over the loop variables bound now.
  Instruction ReadInstruction(int number, EngineId engine, const std::string& text) {
    Cursor c(file_, number, text);
    return ReadInstruction(c, engine);
  }

  Kernel Parse(const std::string& text) {
    ReadLines(text);
    MatchLoops();
    RunBlock(0, lines_.size());
    if (!named_)
      throw SimError(file_ + ":" + std::to_string(std::max(last_line_, 1)) + ": no 'kernel NAME' line");
    if (loops_) {
      BuildLoopForm();
      k_.SetLoops(std::move(loops_));
    }
    return std::move(k_);
  }

 private:
  struct Line {
    int number;
    std::string text;  // comment stripped
  };

  void ReadLines(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      ++last_line_;
      const size_t hash = line.find('#');
      if (hash != std::string::npos) {
        NoteSource(last_line_, line.substr(hash + 1));
        line.erase(hash);
      }
      lines_.push_back({last_line_, line});
    }
  }

  // ---- loops (docs/kernel-format.md "Loops") ------------------------------

  static bool IsLoopOpen(const std::string& text) {
    const std::string t = Collapsed(text);
    return t.compare(0, 5, "loop ") == 0 || t == "loop";
  }
  static bool IsLoopClose(const std::string& text) { return Collapsed(text) == "}"; }

  // Pairs every `loop ... {` line with its `}` (close_of_), before anything runs.
  void MatchLoops() {
    std::vector<size_t> open;
    close_of_.assign(lines_.size(), 0);
    for (size_t i = 0; i < lines_.size(); ++i) {
      if (IsLoopOpen(lines_[i].text)) {
        open.push_back(i);
      } else if (IsLoopClose(lines_[i].text)) {
        if (open.empty()) LineCursor(i).Fail("'}' without a 'loop' to close");
        close_of_[open.back()] = i;
        open.pop_back();
      } else if (!open.empty()) {
        CheckLoopBodyLine(i);
      }
    }
    if (!open.empty()) LineCursor(open.back()).Fail("this loop has no closing '}'");
    // A streamed parse keeps the loop form even without loops: it is what the cursors walk.
    if (count_only_ ||
        close_of_.end() != std::find_if(close_of_.begin(), close_of_.end(), [](size_t c) { return c > 0; })) {
      loops_ = std::make_unique<KernelLoops>();
    }
  }

  void CheckLoopBodyLine(size_t i) {
    Cursor c = LineCursor(i);
    if (c.AtEnd()) return;
    const std::string word = c.Ident("'ENGINE:' or 'loop'");
    if (!c.Consume(':')) c.Fail("only instructions and loops may appear inside a loop, found " + Quoted(word));
  }

  Cursor LineCursor(size_t i) const { return Cursor(file_, lines_[i].number, lines_[i].text); }

  // Runs lines [begin, end): statements, and each loop once per iteration.
  void RunBlock(size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      Cursor c = LineCursor(i);
      if (c.AtEnd()) continue;
      if (close_of_[i] > 0) {  // a `loop` line (MatchLoops paired each with its '}'), known without reading it again
        RunLoop(c, i);
        i = close_of_[i];
      } else {
        ParseStatement(c);
      }
    }
  }

  // `loop VAR in START:STOP[:STEP] {`
  void RunLoop(Cursor& c, size_t open) {
    const LoopHeader h = ReadLoopHeader(c);
    const uint32_t enclosing = iteration_;
    vars_.push_back({h.var, h.start});
    for (int64_t v = h.start; v < h.stop;) {
      vars_.back().value = v;
      loop_line_ = open;
      NoteIteration(open);
      RunBlock(open + 1, close_of_[open]);
      if (__builtin_add_overflow(v, h.step, &v)) break;
    }
    vars_.pop_back();
    iteration_ = enclosing;
  }

  LoopHeader ReadLoopHeader(Cursor& c) {
    if (!named_) c.Fail("expected 'kernel NAME' before anything else, found 'loop'");
    c.Ident("'loop'");
    const std::string var = c.Ident("a loop variable");
    if (var == "program_id" || var == "num_programs" || !IsIdentifier(var))
      c.Fail("invalid loop variable " + Quoted(var));
    if (FindLoopVar(vars_, var)) c.Fail("loop variable " + Quoted(var) + " is already bound by an enclosing loop");
    if (c.Ident("'in' after the loop variable") != "in") c.Fail("expected 'in' after the loop variable");
    const int64_t start = c.Index("the loop start", program_, vars_);
    c.Expect(":", "between the loop start and stop");
    const int64_t stop = c.Index("the loop stop", program_, vars_);
    int64_t step = 1;
    if (c.Consume(':')) step = c.Index("the loop step", program_, vars_);
    if (step < 1) c.Fail("the loop step must be >= 1, found '" + std::to_string(step) + "'");
    c.Expect("{", "at the end of the loop line");
    c.ExpectEnd();
    return {var, start, stop, step};
  }

  // The iteration now running, for the instructions it appends; `open`: its loop's line.
  void NoteIteration(size_t open) {
    CountWork();
    if (count_only_) return;  // a streamed kernel names iterations as its cursors reach them
    auto nest = nest_of_.find(open);
    if (nest == nest_of_.end()) {
      std::vector<std::string> names;
      for (const LoopVar& v : vars_) names.push_back(v.name);
      nest = nest_of_.emplace(open, static_cast<uint32_t>(loops_->nests.size())).first;
      loops_->nests.push_back(std::move(names));
    }
    iteration_ = static_cast<uint32_t>(loops_->iterations.size());
    loops_->iterations.push_back({nest->second, static_cast<uint32_t>(loops_->values.size())});
    for (const LoopVar& v : vars_) loops_->values.push_back(v.value);
  }

  // Iterations and instructions so far against the limit, so that a loop
  // (even an empty one) cannot run away.
  void CountWork() {
    if (++work_ > max_work_) {
      throw SimError(file_ + ":" + std::to_string(lines_[loop_line_].number) + ": the loops unroll to more than " +
                     std::to_string(max_work_) + " iterations and instructions");
    }
  }

  // Each engine's stream in loop form: its instruction lines as written,
  // inside the loops that enclose them (a loop whose body has lines of
  // several engines becomes one loop per engine, as engines run apart).
  void BuildLoopForm() {
    std::vector<std::pair<std::string, int>> open;  // headers (and lines) of the loops around the line
    std::array<size_t, kNumEngines> opened{};  // how many of them each engine's stream has opened
    for (size_t i = 0; i < lines_.size(); ++i) {
      const std::string text = Collapsed(lines_[i].text);
      if (IsLoopOpen(text)) {
        open.push_back({text, lines_[i].number});
      } else if (IsLoopClose(text)) {
        for (int e = 0; e < kNumEngines; ++e) {
          if (opened[e] < open.size()) continue;
          loops_->lines[e].push_back({KernelLoops::Line::kClose, "}", lines_[i].number});
          --opened[e];
        }
        open.pop_back();
      } else if (!text.empty()) {
        AddLoopFormInstruction(i, text, open, &opened);
      }
    }
  }

  void AddLoopFormInstruction(size_t i, const std::string& text, const std::vector<std::pair<std::string, int>>& open,
                              std::array<size_t, kNumEngines>* opened) {
    const size_t colon = text.find(':');
    const std::string word = Collapsed(text.substr(0, colon));
    if (colon == std::string::npos || !IsIdentifier(word)) return;  // kernel, tensor, semaphore
    const int e = static_cast<int>(ParseEnum(LineCursor(i), word, kEngineSyntax));
    while ((*opened)[e] < open.size()) {
      const auto& [header, number] = open[(*opened)[e]++];
      loops_->lines[e].push_back({KernelLoops::Line::kOpen, header, number});
    }
    loops_->lines[e].push_back({KernelLoops::Line::kInstruction, Collapsed(text.substr(colon + 1)), lines_[i].number});
  }

  // Trimmed, with every run of spaces and tabs made one space.
  static std::string Collapsed(const std::string& text) {
    std::string out;
    for (const char c : text) {
      if (!std::isspace(static_cast<unsigned char>(c))) {
        out += c;
      } else if (!out.empty() && out.back() != ' ') {
        out += ' ';
      }
    }
    if (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  }

  // A comment's `src: FRAME < FRAME ...` part, kept as the line's source.
  void NoteSource(int number, const std::string& comment) {
    static const std::string kMark = "src:";
    const size_t at = comment.find(kMark);
    if (at == std::string::npos) return;
    const size_t begin = comment.find_first_not_of(' ', at + kMark.size());
    const size_t end = comment.find_last_not_of(" \r\t");
    if (begin != std::string::npos && end >= begin) k_.sources[number] = comment.substr(begin, end - begin + 1);
  }

  void ParseStatement(Cursor& c) {
    const std::string word = c.Ident("'kernel', 'tensor', 'semaphore' or 'ENGINE:'");
    if (!named_ && word != "kernel")
      c.Fail("expected 'kernel NAME' before anything else, found " + Quoted(word));
    if (c.Consume(':')) return ParseInstruction(c, word);
    if (word == "kernel") return ParseKernelLine(c);
    if (word == "tensor") return ParseTensor(c);
    if (word == "semaphore") return ParseSemaphore(c);
    c.Fail("unknown statement " + Quoted(word) +
           " (expected kernel, tensor, semaphore or ENGINE: OPCODE ...)");
  }

  void ParseKernelLine(Cursor& c) {
    if (named_) c.Fail("duplicate 'kernel' line (the kernel is already named " + Quoted(k_.name) + ")");
    k_.name = c.Ident("a kernel name");
    if (!IsIdentifier(k_.name)) c.Fail("invalid kernel name " + Quoted(k_.name));
    c.ExpectEnd();
    named_ = true;
  }

  void ParseTensor(Cursor& c) {
    const std::string name = c.Ident("a tensor name");
    const MemSpace space = ParseEnum(c, c.Ident("a memory space"), kMemSpaceSyntax);
    const DType dtype = ParseEnum(c, c.Ident("a dtype"), kDTypeSyntax);
    std::vector<int64_t> shape = ParseShape(c);
    TensorInit init;
    int64_t at = -1;
    while (!c.AtEnd()) {
      const std::string key = c.Ident("init= or at=");
      if (key != "init" && key != "at") c.Fail("unknown tensor attribute " + Quoted(key) + " (init= or at=)");
      c.Expect("=", "after " + Quoted(key));
      if (key == "init") {
        init = ParseInit(c);
        continue;
      }
      if (space == MemSpace::kHbm) c.Fail("at= places an SBUF or PSUM tensor; the device binds HBM tensors");
      at = c.Integer("a byte offset within the partition");
      if (at < 0) c.Fail("at=" + std::to_string(at) + ": a byte offset is not negative");
      if (at % DTypeSize(dtype) != 0) {
        c.Fail("at=" + std::to_string(at) + ": not a multiple of the " + DTypeName(dtype) + " element size");
      }
    }
    c.Located([&] { return AddTensor(k_, name, space, dtype, std::move(shape), init); });
    k_.tensors.back().line = c.line();
    k_.tensors.back().at = at;
  }

  std::vector<int64_t> ParseShape(Cursor& c) {
    c.Expect("[", "to open the shape");
    std::vector<int64_t> shape;
    do {
      shape.push_back(c.Integer("a dim size"));
    } while (c.Consume(','));
    c.Expect("]", "to close the shape");
    return shape;
  }

  TensorInit ParseInit(Cursor& c) {
    const std::string kind = c.Ident("an init kind");
    TensorInit init;
    if (kind == "zeros") {
      init.kind = TensorInit::kZeros;
    } else if (kind == "ones") {
      init.kind = TensorInit::kOnes;
    } else if (kind == "iota") {
      init.kind = TensorInit::kIota;
    } else if (kind == "const") {
      init.kind = TensorInit::kConst;
      c.Expect("(", "after 'const'");
      init.value = c.Number("the const value");
      c.Expect(")", "after the const value");
    } else if (kind == "randn" || kind == "rand") {
      init.kind = kind == "randn" ? TensorInit::kRandn : TensorInit::kRand;
      c.Expect("(", "after " + Quoted(kind));
      c.Expect("seed", "in " + kind + "(seed=N)");
      c.Expect("=", "after 'seed'");
      init.seed = c.Unsigned("the seed");
      c.Expect(")", "after the seed");
    } else {
      c.Fail("unknown init " + Quoted(kind) +
             " (known: zeros, ones, const(V), iota, randn(seed=N), rand(seed=N))");
    }
    return init;
  }

  void ParseSemaphore(Cursor& c) {
    const std::string name = c.Ident("a semaphore name");
    c.ExpectEnd();
    c.Located([&] { return AddSemaphore(k_, name); });
  }

  // ---- instructions -----------------------------------------------------

  void ParseInstruction(Cursor& c, const std::string& engine_name) {
    const EngineId engine = ParseEnum(c, engine_name, kEngineSyntax);
    const Instruction inst = ReadInstruction(c, engine);
    if (loops_) CountWork();
    if (count_only_) {
      ++counts_[static_cast<int>(engine)];
      return;
    }
    k_.Append(inst);
    if (loops_) loops_->iteration_of[static_cast<int>(engine)].push_back(iteration_);
  }

  // After the `ENGINE:` prefix: the instruction, checked on its own. Inside
  // loops the line is read once and compiled (line_template.h); later
  // iterations only evaluate its index expressions.
  Instruction ReadInstruction(Cursor& c, EngineId engine) {
    if (vars_.empty()) return ReadText(c, engine);
    const auto known = templates_.find(c.line());
    if (known != templates_.end()) return Instantiate(known->second, k_, file_, program_, vars_);
    LineTemplate t;
    t.text = c.text();
    t.line = c.line();
    rec_ = &t;
    try {
      t.base = ReadText(c, engine);
    } catch (...) {
      rec_ = nullptr;
      throw;
    }
    rec_ = nullptr;
    return templates_.emplace(c.line(), std::move(t)).first->second.base;
  }

  Instruction ReadText(Cursor& c, EngineId engine) {
    const Opcode op = ParseEnum(c, c.Ident("an opcode"), kOpcodeSyntax);
    Instruction inst = c.Located([&] { return MakeInstruction(engine, op); });
    inst.line = c.line();
    rec_inst_ = &inst;
    ParseOperands(c, &inst);
    ParseAttributes(c, &inst);
    rec_inst_ = nullptr;
    return inst;
  }

  void ParseOperands(Cursor& c, Instruction* inst) {
    AccessPattern* slots[] = {&inst->dst, &inst->src0, &inst->src1};
    const int want = NumApOperands(inst->opcode);
    int got = 0;
    if (!c.AtEnd() && !c.NextIsAttribute()) {
      do {
        AccessPattern ap = ParseAccess(c, got < want ? slots[got] : nullptr);
        if (got < want) *slots[got] = std::move(ap);
        ++got;
      } while (c.Consume(','));
    }
    if (got != want) {
      const char* operands = kernel_syntax::SyntaxOf(inst->opcode).operands;
      c.Fail(Quoted(OpcodeName(inst->opcode)) + " takes " + std::to_string(want) + " operand" +
             (want == 1 ? "" : "s") + (want ? std::string(" (") + operands + ")" : "") + ", got " +
             std::to_string(got));
    }
  }

  void ParseAttributes(Cursor& c, Instruction* inst) {
    std::set<std::string> seen;
    while (!c.AtEnd()) {
      if (!c.NextIsAttribute()) c.Fail("expected an attribute KEY=VALUE, found " + c.Found());
      const std::string key = c.Ident("an attribute name");
      c.Expect("=", "after " + Quoted(key));
      if (key == "wait") {
        inst->waits.push_back(ParseWait(c));
      } else if (key == "signal") {
        inst->signals.push_back(ParseSignal(c));
      } else {
        const AttrDef& a = LookupAttr(c, inst->opcode, key);
        if (!seen.insert(key).second) c.Fail("duplicate attribute " + Quoted(key));
        std::visit([&](auto member) { ParseValue(c, key, &(inst->*member.fat)); }, a.field);
      }
    }
    CheckAttributes(c, *inst, seen);
  }

  const AttrDef& LookupAttr(Cursor& c, Opcode op, const std::string& key) {
    const AttrDef* a = kernel_syntax::FindAttr(op, key);
    if (a) return *a;
    const std::string valid =
        "(valid for " + std::string(OpcodeName(op)) + ": " + kernel_syntax::AttrNames(op) + ")";
    if (kernel_syntax::IsKnownAttr(key))
      c.Fail("attribute " + Quoted(key) + " is not valid for " + OpcodeName(op) + " " + valid);
    c.Fail("unknown attribute " + Quoted(key) + " " + valid);
  }

  // The rules a single attribute cannot check on its own.
  void CheckAttributes(Cursor& c, const InstructionView& inst, const std::set<std::string>& seen) {
    const std::string op = OpcodeName(inst.opcode);
    for (const AttrDef& a : kernel_syntax::SyntaxOf(inst.opcode).attrs) {
      const bool given = seen.count(a.key) > 0;
      if (a.required && !given) c.Fail(op + " needs attribute " + Quoted(a.key));
      if (a.partner && given && !seen.count(a.partner)) {
        c.Fail("attribute " + Quoted(a.key) + " of " + op + " needs " + Quoted(a.partner) + " as well");
      }
    }
    if (inst.opcode == Opcode::kWait) {
      if (!inst.signals.empty()) c.Fail("'wait' only waits: signal= is not valid for it");
      if (inst.waits.empty()) c.Fail("'wait' needs at least one wait=SEMAPHORE>=N");
    }
    if (inst.opcode == Opcode::kPartitionReduce && inst.reduce == ReduceOp::kMean) {
      c.Fail("partition_reduce supports op=sum, max or min, not 'mean'");
    }
  }

  SemWait ParseWait(Cursor& c) {
    SemWait w;
    w.sem = ParseSemaphoreRef(c);
    c.Expect(">=", "in wait=SEMAPHORE>=N");
    CompiledIndexExpr expr;
    w.value = c.Index("the wait value", program_, vars_, &expr);
    if (rec_ != nullptr && !expr.empty()) {
      rec_->steps.push_back(LineTemplate::Wait{rec_inst_->waits.size(), {std::move(expr), "the wait value"}});
    }
    if (w.value < 0) c.Fail("the wait value must be >= 0, found '" + std::to_string(w.value) + "'");
    return w;
  }

  SemSignal ParseSignal(Cursor& c) {
    SemSignal s;
    s.sem = ParseSemaphoreRef(c);
    if (c.ConsumeAdjacent('+')) {
      s.delta = c.Integer("the signal increment");
      if (s.delta < 1) c.Fail("the signal increment must be >= 1, found '" + std::to_string(s.delta) + "'");
    }
    return s;
  }

  int ParseSemaphoreRef(Cursor& c) {
    const std::string name = c.Ident("a semaphore name");
    const int sem = k_.FindSemaphore(name);
    if (sem >= 0) return sem;
    if (k_.FindTensor(name) >= 0) c.Fail(Quoted(name) + " is a tensor, not a semaphore");
    c.Fail("unknown semaphore " + Quoted(name));
  }

  // ---- attribute values, one overload per kernel_syntax::Field type -----

  void ParseValue(Cursor& c, const std::string& key, int* out) {
    const int64_t v = c.NonNegative(Quoted(key));
    if (v > INT32_MAX) c.Fail(Quoted(key) + " is too large, found '" + std::to_string(v) + "'");
    *out = static_cast<int>(v);
  }
  void ParseValue(Cursor& c, const std::string& key, bool* out) {
    const std::string v = c.Ident("true or false for " + Quoted(key));
    if (v != "true" && v != "false")
      c.Fail("expected true or false for " + Quoted(key) + ", found " + Quoted(v));
    *out = v == "true";
  }
  void ParseValue(Cursor& c, const std::string& key, double* out) { *out = c.Number(Quoted(key)); }
  void ParseValue(Cursor& c, const std::string&, AccessPattern* out) { *out = ParseAccess(c, out); }
  void ParseValue(Cursor& c, const std::string& key, Scalar* out) {
    if (c.NextIsNumber()) {
      *out = Imm(c.Number(Quoted(key)));
    } else {
      *out = Column(ParseAccess(c, &out->ap));
    }
  }
  void ParseValue(Cursor& c, const std::string&, AluOp* out) {
    *out = ParseEnum(c, c.Ident("an alu op"), kAluSyntax);
  }
  void ParseValue(Cursor& c, const std::string&, ReduceOp* out) {
    *out = ParseEnum(c, c.Ident("a reduce op"), kReduceSyntax);
  }
  void ParseValue(Cursor& c, const std::string&, ActFunc* out) {
    *out = ParseEnum(c, c.Ident("an activation function"), kActFuncSyntax);
  }

  // ---- access patterns --------------------------------------------------

  // `target`: the instruction's field it lands in (nullptr: none, an error follows).
  AccessPattern ParseAccess(Cursor& c, AccessPattern* target) {
    const std::string name = c.Ident("an access pattern (a tensor name)");
    const int t = k_.FindTensor(name);
    if (t < 0) {
      if (k_.FindSemaphore(name) >= 0) c.Fail(Quoted(name) + " is a semaphore, not a tensor");
      c.Fail("unknown tensor " + Quoted(name));
    }
    if (c.ConsumeAdjacent('[')) {
      std::vector<std::pair<uint32_t, LineTemplate::Hole>> holes;
      std::vector<SliceSpec> idx = ParseSliceIndices(c, &holes);
      AccessPattern ap = c.Located([&] { return Slice(k_, t, idx); });
      if (rec_ != nullptr && target != nullptr && !holes.empty()) {
        LineTemplate::Operand op;
        op.field = FieldAt(*rec_inst_, target);
        op.tensor = t;
        op.idx = std::move(idx);
        op.holes = std::move(holes);
        rec_->steps.push_back(std::move(op));
      }
      return ap;
    }
    if (c.ConsumeAdjacent('.')) {
      const std::string method = c.Ident("'ap' after '.'");
      if (method != "ap")
        c.Fail("unknown access method " + Quoted("." + method) +
               " (only .ap(OFFSET, [[STRIDE, SIZE], ...]))");
      return ParseExplicitAp(c, t, target);
    }
    return c.Located([&] { return Full(k_, t); });
  }

  // After the '[': indices up to and including the ']'; `holes` learns which bounds are expressions.
  std::vector<SliceSpec> ParseSliceIndices(Cursor& c, std::vector<std::pair<uint32_t, LineTemplate::Hole>>* holes) {
    std::vector<SliceSpec> idx;
    do {
      idx.push_back(ParseSliceIndex(c, static_cast<uint32_t>(3 * idx.size()), holes));
    } while (c.Consume(','));
    c.Expect("]", "to close the index list");
    return idx;
  }

  // numpy forms: a | a:b | a:b:s | : | a: | :b | ::s ...
  // `bound`: 3 * its position in the list (+1 for its stop, +2 for its step, in `holes`).
  SliceSpec ParseSliceIndex(Cursor& c, uint32_t bound, std::vector<std::pair<uint32_t, LineTemplate::Hole>>* holes) {
    const auto bound_follows = [&c] { return !c.Peek(':') && !c.Peek(',') && !c.Peek(']'); };
    const auto index = [&](const char* what, uint32_t which) {
      CompiledIndexExpr expr;
      const int64_t v = c.Index(what, program_, vars_, &expr);
      if (!expr.empty()) holes->push_back({bound + which, {std::move(expr), what}});
      return v;
    };
    SliceSpec s = SliceSpec::All();
    if (!c.Peek(':')) s.start = index("an index", 0);
    if (!c.Consume(':')) return SliceSpec::At(s.start);
    if (bound_follows()) s.stop = index("a slice stop", 1);
    if (c.Consume(':') && bound_follows()) s.step = index("a slice step", 2);
    return s;
  }

  // After the ".ap": (OFFSET, [[STRIDE, SIZE], ...]).
  AccessPattern ParseExplicitAp(Cursor& c, int t, AccessPattern* target) {
    c.Expect("(", "after '.ap'");
    CompiledIndexExpr expr;
    const int64_t offset = c.Index("the .ap offset", program_, vars_, &expr);
    c.Expect(",", "after the .ap offset");
    c.Expect("[", "to open the [STRIDE, SIZE] list");
    std::vector<ApDim> dims;
    do {
      ApDim d;
      c.Expect("[", "to open a [STRIDE, SIZE] pair");
      d.stride = c.Integer("a stride");
      c.Expect(",", "between stride and size");
      d.size = c.Integer("a size");
      c.Expect("]", "to close a [STRIDE, SIZE] pair");
      dims.push_back(d);
    } while (c.Consume(','));
    c.Expect("]", "to close the [STRIDE, SIZE] list");
    c.Expect(")", "to close .ap(...)");
    AccessPattern ap = c.Located([&] { return Ap(k_, t, offset, dims); });
    if (rec_ != nullptr && target != nullptr && !expr.empty()) {
      LineTemplate::Operand op;
      op.field = FieldAt(*rec_inst_, target);
      op.tensor = t;
      op.explicit_ap = true;
      op.dims = std::move(dims);
      op.holes.push_back({0, {std::move(expr), "the .ap offset"}});
      rec_->steps.push_back(std::move(op));
    }
    return ap;
  }

  const std::string file_;
  const ProgramIndex program_;
  Kernel k_;
  bool named_ = false;
  std::vector<Line> lines_;
  int last_line_ = 0;
  std::vector<size_t> close_of_;  // loop line -> its '}' line (MatchLoops)
  LoopVars vars_;                 // of the loops running, outermost first
  std::unique_ptr<KernelLoops> loops_;  // the loop form, when the text has loops
  uint32_t iteration_ = 0;        // index into loops_->iterations of the iteration running
  std::map<size_t, uint32_t> nest_of_;  // loop line -> index into loops_->nests
  size_t loop_line_ = 0;          // the loop whose iteration runs (for the limit's error)
  int64_t work_ = 0;
  int64_t max_work_;
  // Loop-body lines compiled at their first iteration, by line number; while
  // one is being read, the template it fills and the instruction it reads into.
  std::unordered_map<int, LineTemplate> templates_;
  LineTemplate* rec_ = nullptr;
  Instruction* rec_inst_ = nullptr;
  // A streamed parse (ParseStreamed): checks every line and iteration as the
  // unrolled parse does, but only counts each engine's instructions.
  bool count_only_ = false;
  std::array<int64_t, kNumEngines> counts_{};
};

}  // namespace

namespace {

// Whether the text names program_id or num_programs as a word (not inside a
// longer name such as a tensor called 'my_program_id').
bool MentionsProgram(const std::string& text) {
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (const char* w : {"program_id", "num_programs"}) {
    const std::string word(w);
    for (size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + 1)) {
      const bool before = p > 0 && word_char(text[p - 1]);
      const bool after = p + word.size() < text.size() && word_char(text[p + word.size()]);
      if (!before && !after) return true;
    }
  }
  return false;
}

}  // namespace

Kernel ParseKernel(const std::string& text, const std::string& filename, const ProgramIndex& program,
                   int64_t max_loop_work) {
  Kernel k = Parser(filename, program, max_loop_work).Parse(text);
  if (MentionsProgram(text)) k.spmd = std::make_shared<const SpmdSource>(SpmdSource{text, filename});
  return k;
}

Kernel ParseKernel(const std::string& text, const std::string& filename) {
  return ParseKernel(text, filename, ProgramIndex{});
}

std::string ReadKernelFile(const std::string& path) {
  // A kernel file is text a person wrote or a generator printed; anything
  // larger is a mistake (a device, a pipe that never ends), not a kernel.
  constexpr std::streamsize kMaxBytes = std::streamsize{256} << 20;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw SimError("kernel file '" + path + "' is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SimError("cannot open kernel file '" + path + "'");
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (static_cast<std::streamsize>(text.size()) > kMaxBytes) {
      throw SimError("kernel file '" + path + "' is larger than " + std::to_string(kMaxBytes >> 20) +
                     " MiB; kernel files are text (is it a device or a binary?)");
    }
  }
  if (in.bad()) throw SimError("cannot read kernel file '" + path + "'");
  return text;
}

Kernel LoadKernelFile(const std::string& path) {
  Kernel k = ParseKernel(ReadKernelFile(path), path);
  std::vector<bool> named;  // by line: unrolled loops repeat lines
  for (int e = 0; e < kNumEngines; ++e) {
    for (size_t i = 0; i < k.stream(e).size(); ++i) {
      const int line = k.instruction(static_cast<EngineId>(e), i).line;
      if (line >= static_cast<int>(named.size())) named.resize(line + 1);
      if (named[line]) continue;
      named[line] = true;
      k.sources.emplace(line, path + ":" + std::to_string(line) + " " + k.name);  // keeps a src: comment
    }
  }
  return k;
}

std::vector<Kernel> ParseGrid(const std::string& text, const std::string& filename, int64_t programs) {
  if (programs < 1) throw SimError(filename + ": a grid needs at least one program, got " + std::to_string(programs));
  std::vector<Kernel> out;
  for (int64_t i = 0; i < programs; ++i) {
    try {
      out.push_back(ParseKernel(text, filename, ProgramIndex{i, programs}));
    } catch (const SimError& e) {
      throw SimError(std::string(e.what()) + " (program_id " + std::to_string(i) + " of " + std::to_string(programs) + ")");
    }
  }
  return out;
}

}  // namespace nsim

namespace nsim {

// The parser of a StreamCursor: the declarations, and the loop variables the cursor binds.
class StreamCursor::LineReader : public Parser {
 public:
  using Parser::Parser;
};

StreamedKernel ParseStreamed(const std::string& text, const std::string& filename, const ProgramIndex& program,
                             int64_t max_loop_work) {
  Parser parser(filename, program, max_loop_work, /*count_only=*/true);
  StreamedKernel out;
  out.decls = parser.Parse(text);
  out.counts = parser.counts();
  if (MentionsProgram(text)) out.decls.spmd = std::make_shared<const SpmdSource>(SpmdSource{text, filename});
  out.filename = filename;
  out.program = program;
  return out;
}

StreamCursor::StreamCursor(const StreamedKernel& k, int engine)
    : engine_(static_cast<EngineId>(engine)),
      lines_(&k.decls.loops()->lines[static_cast<size_t>(engine)]),
      reader_(std::make_unique<LineReader>(k.filename, k.program, k.decls)) {
  close_of_.assign(lines_->size(), 0);
  std::vector<size_t> open;
  for (size_t i = 0; i < lines_->size(); ++i) {
    if ((*lines_)[i].kind == KernelLoops::Line::kOpen) open.push_back(i);
    if ((*lines_)[i].kind == KernelLoops::Line::kClose) {
      close_of_[open.back()] = i;
      open.pop_back();
    }
  }
}

StreamCursor::~StreamCursor() = default;
StreamCursor::StreamCursor(StreamCursor&&) noexcept = default;

// Walks the loop form as Parser::RunLoop runs the text: a loop's header is
// read (with the outer loops' values) each time it is entered, its variable
// steps at its `}`, and it ends when the variable reaches the stop (or
// would overflow).
bool StreamCursor::Next(Instruction* out) {
  LoopVars& vars = reader_->vars();
  while (pc_ < lines_->size()) {
    const KernelLoops::Line& line = (*lines_)[pc_];
    if (line.kind == KernelLoops::Line::kInstruction) {
      *out = reader_->ReadInstruction(line.number, engine_, line.text);
      ++pc_;
      ++position_;
      return true;
    }
    if (line.kind == KernelLoops::Line::kOpen) {
      const Parser::LoopHeader h = reader_->ReadLoopHeader(line.number, line.text);
      if (h.start < h.stop) {
        vars.push_back({h.var, h.start});
        frames_.push_back({pc_, h.stop, h.step});
        ++pc_;
      } else {
        pc_ = close_of_[pc_] + 1;
      }
      continue;
    }
    int64_t& v = vars.back().value;
    if (!__builtin_add_overflow(v, frames_.back().step, &v) && v < frames_.back().stop) {
      pc_ = frames_.back().open + 1;
    } else {
      vars.pop_back();
      frames_.pop_back();
      ++pc_;
    }
  }
  return false;
}

std::string StreamCursor::LoopIndices() const {
  std::string label;
  for (const LoopVar& v : reader_->vars()) label += (label.empty() ? "" : ",") + v.name + "=" + std::to_string(v.value);
  return label;
}

}  // namespace nsim
