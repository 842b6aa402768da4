#include "sim/kernel/printer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <charconv>
#include <variant>

#include "sim/base/error.h"
#include "sim/kernel/ap_cache.h"
#include "sim/kernel/builder.h"
#include "sim/kernel/syntax.h"

namespace nsim {
namespace {

using kernel_syntax::AttrDef;

// Instruction lines start with the engine name padded to this width, so the
// opcodes line up ("gpsimd:" is the longest prefix).
constexpr size_t kEnginePrefixWidth = 8;
// Beyond this many dims, guessing a slice form is not worth 2^dims tries.
constexpr size_t kMaxSliceSearchDims = 12;

std::string PadRight(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string Join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

bool OnChip(const TensorDecl& t) { return t.space != MemSpace::kHbm; }

// The texts of the access patterns printed lately, by content (a long kernel
// names the same tiles again and again, and finding the shortest slice text
// is the costly part).
using ApMemo = ApCache<std::string>;

// Where an instruction line's text goes, fragment by fragment: appended to a
// string, or gathered into a line handed to KernelPieces' callback in one
// piece (KernelHash folds it into the hash). `memo`: access pattern texts
// of this kernel, or nullptr.
struct StringOut {
  std::string& text;
  ApMemo* memo = nullptr;
  void Put(std::string_view v) { text.append(v.data(), v.size()); }
};
class LineOut {
 public:
  LineOut(const std::function<void(std::string_view)>& piece, ApMemo* memo) : memo(memo), piece_(piece) {}
  ApMemo* const memo;
  void Put(std::string_view v) {
    if (used_ + v.size() > sizeof line_) {
      Flush();
      if (v.size() > sizeof line_) return piece_(v);
    }
    std::memcpy(line_ + used_, v.data(), v.size());
    used_ += v.size();
  }
  void Flush() {
    if (used_ > 0) piece_(std::string_view(line_, used_));
    used_ = 0;
  }

 private:
  const std::function<void(std::string_view)>& piece_;
  char line_[512];
  size_t used_ = 0;
};

template <class Out>
void PutInt(Out& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.Put(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
}

template <class Out>
void PutSemaphoreName(Out& out, const Kernel& k, int sem) {
  if (sem >= 0 && sem < static_cast<int>(k.semaphores.size())) {
    out.Put(k.semaphores[sem]);
    return;
  }
  out.Put("<semaphore#");
  PutInt(out, sem);
  out.Put(">");
}

const std::string& AccessPatternText(const Kernel& k, const AccessPattern& ap, ApMemo* memo, std::string* scratch);

// ---- access patterns ----------------------------------------------------

bool IsWholeDim(const SliceSpec& s) {
  return !s.index && s.start == 0 && s.stop == SliceSpec::kEnd && s.step == 1;
}

// The range start:stop:step covering `count` elements of a dim of `size`,
// with the stop left open when the range runs to the end of the dim.
SliceSpec RangeOf(int64_t start, int64_t count, int64_t step, int64_t size) {
  const __int128 stop = static_cast<__int128>(start) + static_cast<__int128>(count) * step;
  return SliceSpec::Range(start, stop >= size ? SliceSpec::kEnd : static_cast<int64_t>(stop), step);
}

// The index of one walked tensor dim (of `size`, element stride `stride`,
// first element `start`) that yields the access dim `d`, if any.
bool KeptDimSpec(const ApDim& d, int64_t start, int64_t stride, int64_t size, SliceSpec* out) {
  if (d.stride <= 0 || d.size <= 0 || d.stride % stride != 0) return false;
  const int64_t step = d.stride / stride;
  if (d.size - 1 > (size - 1 - start) / step) return false;  // last element past the dim
  *out = RangeOf(start, d.size, step, size);
  return true;
}

// Slice indices that might reproduce `ap`: for each choice of which walked
// tensor dims are kept (the rest are single indices), the one candidate the
// access's offset and strides allow. Slice() then confirms or rejects each.
std::vector<std::vector<SliceSpec>> SliceCandidates(const TensorDecl& t, const AccessPattern& ap) {
  const size_t first = OnChip(t) ? 1 : 0;
  const size_t n = t.shape.size() - first;
  if (ap.dims.size() < first || n > kMaxSliceSearchDims) return {};
  for (int64_t d : t.shape) {
    if (d <= 0) return {};  // a hand-made declaration the builder would have refused
  }
  // On-chip, the partition index comes first: a single partition may be
  // written either way, so both are tried (the range first: it wins ties, as
  // ":" reads better than "0" for the one partition of a [1, ...] tensor).
  // HBM has no partition index.
  std::vector<std::vector<SliceSpec>> prefixes;
  if (first) {
    const int64_t count = ap.dims[0].size;
    prefixes.push_back({RangeOf(ap.partition_start, count, 1, t.shape[0])});
    if (count == 1) prefixes.push_back({SliceSpec::At(ap.partition_start)});
  } else {
    prefixes.push_back({});
  }
  // Decompose the flat offset into one start per walked dim (row-major).
  std::vector<int64_t> starts(n), strides(n);
  int64_t rest = ap.offset, stride = 1;
  for (size_t i = n; i-- > 0;) {
    const int64_t size = t.shape[first + i];
    strides[i] = stride;
    starts[i] = rest % size;
    rest /= size;
    stride *= size;
  }
  if (ap.offset < 0 || rest != 0) return {};
  const size_t kept_wanted = ap.dims.size() - first;
  std::vector<std::vector<SliceSpec>> out;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    const size_t kept = __builtin_popcount(mask);
    if (kept != kept_wanted && kept != 0) continue;  // 0: an all-indexed HBM access is {{1, 1}}
    std::vector<SliceSpec> walked;
    size_t j = first;
    bool ok = true;
    for (size_t i = 0; i < n && ok; ++i) {
      SliceSpec s = SliceSpec::At(starts[i]);
      if (mask & (1u << i)) {
        ok = j < ap.dims.size() && KeptDimSpec(ap.dims[j++], starts[i], strides[i], t.shape[first + i], &s);
      }
      walked.push_back(s);
    }
    if (!ok) continue;
    for (std::vector<SliceSpec> idx : prefixes) {
      idx.insert(idx.end(), walked.begin(), walked.end());
      while (!idx.empty() && IsWholeDim(idx.back())) idx.pop_back();
      out.push_back(std::move(idx));
    }
  }
  return out;
}

std::string FormatSlice(const std::string& name, const std::vector<SliceSpec>& idx) {
  if (idx.empty()) return name;
  std::vector<std::string> parts;
  for (const SliceSpec& s : idx) parts.push_back(FormatSliceSpec(s));
  return name + "[" + Join(parts, ", ") + "]";
}

std::string FormatExplicitAp(const TensorDecl& t, const AccessPattern& ap) {
  int64_t offset = ap.offset;
  std::vector<std::string> pairs;
  for (size_t i = 0; i < ap.dims.size(); ++i) {
    int64_t stride = ap.dims[i].stride;
    if (i == 0 && OnChip(t)) {  // the partition pair is written in free-size units
      stride = t.FreeElements();
      offset += ap.partition_start * stride;
    }
    pairs.push_back("[" + std::to_string(stride) + ", " + std::to_string(ap.dims[i].size) + "]");
  }
  return t.name + ".ap(" + std::to_string(offset) + ", [" + Join(pairs, ", ") + "])";
}

// ---- attribute values ---------------------------------------------------

template <class Out>
void PutAccessPattern(Out& out, const Kernel& k, const AccessPattern& ap) {
  std::string scratch;
  out.Put(AccessPatternText(k, ap, out.memo, &scratch));
}

// Puts an attribute value, one overload per kernel_syntax::Field type.
template <class Out>
struct ValuePutter {
  const Kernel& k;
  Out& out;
  void operator()(int v) const { PutInt(out, v); }
  void operator()(bool v) const { out.Put(v ? "true" : "false"); }
  void operator()(double v) const { out.Put(FormatNumber(v)); }
  void operator()(const Scalar& v) const {
    if (v.is_ap) PutAccessPattern(out, k, v.ap);
    else out.Put(FormatNumber(v.imm));
  }
  void operator()(const AccessPattern& v) const { PutAccessPattern(out, k, v); }
  void operator()(AluOp v) const { out.Put(AluOpName(v)); }
  void operator()(ReduceOp v) const { out.Put(ReduceOpName(v)); }
  void operator()(ActFunc v) const { out.Put(ActFuncName(v)); }
};

bool AtDefault(const InstructionView& inst, const InstructionView& defaults, const kernel_syntax::Field& field) {
  return std::visit([&](auto member) { return member.view(inst) == member.view(defaults); }, field);
}

// OpcodeDefaults(op) built once per opcode: the printer compares every
// attribute of every instruction against it.
const Instruction& DefaultsOf(Opcode op) {
  static const std::vector<Instruction> table = [] {
    std::vector<Instruction> t;
    for (int o = 0; o < kNumOpcodes; ++o) t.push_back(kernel_syntax::OpcodeDefaults(static_cast<Opcode>(o)));
    return t;
  }();
  return table[static_cast<size_t>(op)];
}

// kernel_syntax::FindAttr without building a std::string for the key.
const AttrDef* PartnerOf(Opcode op, const char* key) {
  for (const AttrDef& a : kernel_syntax::SyntaxOf(op).attrs) {
    if (std::strcmp(a.key, key) == 0) return &a;
  }
  return nullptr;
}

// Required attributes always print; optional ones when not at their default
// or when their partner prints (op1 needs scalar1 and vice versa).
bool ShouldPrint(const InstructionView& inst, const InstructionView& defaults, const AttrDef& a) {
  if (a.required || !AtDefault(inst, defaults, a.field)) return true;
  const AttrDef* partner = a.partner ? PartnerOf(inst.opcode, a.partner) : nullptr;
  return partner && !AtDefault(inst, defaults, partner->field);
}

// The positional access patterns (", " between them) and the attributes
// (" " before each), `lead` before the first item if there is one.
template <class Out>
void PutOperands(Out& out, const Kernel& k, const InstructionView& inst, const char* lead) {
  bool any = false;
  auto separate = [&](const char* between) {
    out.Put(any ? between : lead);
    any = true;
  };
  const AccessPattern* positional[] = {&inst.dst, &inst.src0, &inst.src1};
  for (int i = 0; i < NumApOperands(inst.opcode); ++i) {
    separate(", ");
    PutAccessPattern(out, k, *positional[i]);
  }
  const InstructionView defaults = DefaultsOf(inst.opcode);
  for (const AttrDef& a : kernel_syntax::SyntaxOf(inst.opcode).attrs) {
    if (!ShouldPrint(inst, defaults, a)) continue;
    separate(" ");
    out.Put(a.key);
    out.Put("=");
    std::visit([&](auto member) { ValuePutter<Out>{k, out}(member.view(inst)); }, a.field);
  }
}

template <class Out>
void PutSync(Out& out, const Kernel& k, const InstructionView& inst) {
  for (const SemWait& w : inst.waits) {
    out.Put(" wait=");
    PutSemaphoreName(out, k, w.sem);
    out.Put(">=");
    PutInt(out, w.value);
  }
  for (const SemSignal& s : inst.signals) {
    out.Put(" signal=");
    PutSemaphoreName(out, k, s.sem);
    if (s.delta != 1) {
      out.Put("+");
      PutInt(out, s.delta);
    }
  }
}

// The line after the engine prefix: opcode, operands, attributes, sync.
template <class Out>
void PutBody(Out& out, const Kernel& k, const InstructionView& inst) {
  out.Put(OpcodeName(inst.opcode));
  PutOperands(out, k, inst, " ");
  PutSync(out, k, inst);
}

// ---- declarations -------------------------------------------------------

std::string FormatInit(const TensorInit& init) {
  switch (init.kind) {
    case TensorInit::kNone: return "";
    case TensorInit::kZeros: return "zeros";
    case TensorInit::kOnes: return "ones";
    case TensorInit::kConst: return "const(" + FormatNumber(init.value) + ")";
    case TensorInit::kIota: return "iota";
    case TensorInit::kRandn: return "randn(seed=" + std::to_string(init.seed) + ")";
    case TensorInit::kRand: return "rand(seed=" + std::to_string(init.seed) + ")";
  }
  return "";
}

std::string FormatShape(const std::vector<int64_t>& shape) {
  std::vector<std::string> dims;
  for (int64_t d : shape) dims.push_back(std::to_string(d));
  return "[" + Join(dims, ", ") + "]";
}

// Columns are aligned so that declarations read as a table; the shape column
// only as wide as the shapes followed by an init= need.
std::string FormatTensors(const Kernel& k) {
  size_t name_w = 0, dtype_w = 0, shape_w = 0;
  for (const TensorDecl& t : k.tensors) {
    name_w = std::max(name_w, t.name.size());
    dtype_w = std::max(dtype_w, std::string(DTypeName(t.dtype)).size());
    if (t.init.kind != TensorInit::kNone) shape_w = std::max(shape_w, FormatShape(t.shape).size());
  }
  std::string out;
  for (const TensorDecl& t : k.tensors) {
    out += "tensor " + PadRight(t.name, name_w) + " " + PadRight(MemSpaceName(t.space), 4) + " " +
           PadRight(DTypeName(t.dtype), dtype_w) + " ";
    const std::string init = FormatInit(t.init);
    out += init.empty() ? FormatShape(t.shape) : PadRight(FormatShape(t.shape), shape_w) + " init=" + init;
    if (t.at >= 0) out += " at=" + std::to_string(t.at);
    out += "\n";
  }
  return out;
}

}  // namespace

std::string FormatNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

namespace {

std::string FormatAccessPatternUncached(const Kernel& k, const AccessPattern& ap);

// The text of `ap`: from `memo` when there is one (made and kept there the
// first time), else made in *scratch.
const std::string& AccessPatternText(const Kernel& k, const AccessPattern& ap, ApMemo* memo, std::string* scratch) {
  if (memo == nullptr) {
    *scratch = FormatAccessPatternUncached(k, ap);
    return *scratch;
  }
  const uint64_t h = HashAccessPattern(ap);
  if (const std::string* text = memo->Find(ap, h)) return *text;
  return memo->Put(ap, h, FormatAccessPatternUncached(k, ap));
}

}  // namespace

std::string FormatAccessPattern(const Kernel& k, const AccessPattern& ap) { return FormatAccessPatternUncached(k, ap); }

namespace {

std::string FormatAccessPatternUncached(const Kernel& k, const AccessPattern& ap) {
  if (!ap.present()) return "<none>";
  if (ap.tensor >= static_cast<int>(k.tensors.size())) return "<tensor#" + std::to_string(ap.tensor) + ">";
  const TensorDecl& t = k.tensors[ap.tensor];
  std::string best;
  for (const std::vector<SliceSpec>& idx : SliceCandidates(t, ap)) {
    try {
      if (Slice(k, ap.tensor, idx) != ap) continue;
    } catch (const SimError&) {
      continue;  // candidates are pre-checked; this only guards against hand-made oddities
    }
    const std::string text = FormatSlice(t.name, idx);
    if (best.empty() || text.size() < best.size()) best = text;
  }
  return best.empty() ? FormatExplicitAp(t, ap) : best;
}

}  // namespace

std::string FormatOperands(const Kernel& k, const InstructionView& inst) {
  std::string text;
  StringOut out{text};
  PutOperands(out, k, inst, "");
  return text;
}

std::string FormatInstruction(const Kernel& k, const InstructionView& inst) {
  std::string text = std::string(EngineName(inst.engine)) + ": ";
  StringOut out{text};
  PutBody(out, k, inst);
  return text;
}

struct KernelPieces::Memo {
  explicit Memo(const Kernel& k) : texts(ApMemo::SlotsLog2For(k.NumInstructions())) {}
  ApMemo texts;
};

KernelPieces::KernelPieces(const Kernel& k, std::function<void(std::string_view)> piece)
    : k_(k), piece_(std::move(piece)), memo_(std::make_unique<Memo>(k)) {
  piece_("kernel " + k.name + "\n");
  if (!k.tensors.empty()) piece_("\n" + FormatTensors(k));
  std::string sems;
  for (const std::string& s : k.semaphores) sems += "semaphore " + s + "\n";
  if (!sems.empty()) piece_("\n" + sems);
}

KernelPieces::~KernelPieces() = default;

// The streams section follows a blank line, and engine groups are separated
// by one; the stream an instruction sits in decides its line's prefix.
void KernelPieces::Line(int engine, const InstructionView& inst) {
  LineOut out(piece_, &memo_->texts);
  if (engine != engine_) {
    out.Put("\n");
    engine_ = engine;
    prefix_ = PadRight(std::string(EngineName(static_cast<EngineId>(engine))) + ":", kEnginePrefixWidth);
  }
  out.Put(prefix_);
  PutBody(out, k_, inst);
  out.Put("\n");
  out.Flush();
}

namespace {

// Each engine's stream in loop form, bodies indented two spaces per loop.
void PutLoopForm(const KernelLoops& loops, const std::function<void(std::string_view)>& piece) {
  for (int e = 0; e < kNumEngines; ++e) {
    if (loops.lines[e].empty()) continue;
    const std::string prefix = PadRight(std::string(EngineName(static_cast<EngineId>(e))) + ":", kEnginePrefixWidth);
    std::string text = "\n";
    size_t depth = 0;
    for (const KernelLoops::Line& line : loops.lines[e]) {
      if (line.kind == KernelLoops::Line::kClose) --depth;
      text.append(2 * depth, ' ');
      text += (line.kind == KernelLoops::Line::kInstruction ? prefix : "") + line.text + "\n";
      if (line.kind == KernelLoops::Line::kOpen) ++depth;
    }
    piece(text);
  }
}

}  // namespace

void FormatKernelPieces(const Kernel& k, const std::function<void(std::string_view)>& piece) {
  KernelPieces pieces(k, piece);
  if (k.loops()) return PutLoopForm(*k.loops(), piece);
  for (int e = 0; e < kNumEngines; ++e) {
    for (const InstructionView& inst : k.stream(e)) pieces.Line(e, inst);
  }
}

std::string FormatKernel(const Kernel& k) {
  std::string out;
  FormatKernelPieces(k, [&out](std::string_view piece) { out.append(piece.data(), piece.size()); });
  return out;
}

}  // namespace nsim
