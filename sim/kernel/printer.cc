#include "sim/kernel/printer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <variant>

#include "sim/base/error.h"
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

std::string SemaphoreName(const Kernel& k, int sem) {
  if (sem >= 0 && sem < static_cast<int>(k.semaphores.size())) return k.semaphores[sem];
  return "<semaphore#" + std::to_string(sem) + ">";
}

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

std::string FormatScalar(const Kernel& k, const Scalar& s) {
  return s.is_ap ? FormatAccessPattern(k, s.ap) : FormatNumber(s.imm);
}

// One overload per kernel_syntax::Field type.
struct ValueFormatter {
  const Kernel& k;
  std::string operator()(int v) const { return std::to_string(v); }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
  std::string operator()(double v) const { return FormatNumber(v); }
  std::string operator()(const Scalar& v) const { return FormatScalar(k, v); }
  std::string operator()(const AccessPattern& v) const { return FormatAccessPattern(k, v); }
  std::string operator()(AluOp v) const { return AluOpName(v); }
  std::string operator()(ReduceOp v) const { return ReduceOpName(v); }
  std::string operator()(ActFunc v) const { return ActFuncName(v); }
};

bool AtDefault(const Instruction& inst, const Instruction& defaults, const kernel_syntax::Field& field) {
  return std::visit([&](auto member) { return inst.*member == defaults.*member; }, field);
}

// Required attributes always print; optional ones when not at their default
// or when their partner prints (op1 needs scalar1 and vice versa).
bool ShouldPrint(const Instruction& inst, const Instruction& defaults, const AttrDef& a) {
  if (a.required || !AtDefault(inst, defaults, a.field)) return true;
  const AttrDef* partner = a.partner ? kernel_syntax::FindAttr(inst.opcode, a.partner) : nullptr;
  return partner && !AtDefault(inst, defaults, partner->field);
}

std::string FormatSync(const Kernel& k, const Instruction& inst) {
  std::string out;
  for (const SemWait& w : inst.waits) {
    out += " wait=" + SemaphoreName(k, w.sem) + ">=" + std::to_string(w.value);
  }
  for (const SemSignal& s : inst.signals) {
    out += " signal=" + SemaphoreName(k, s.sem) + (s.delta == 1 ? "" : "+" + std::to_string(s.delta));
  }
  return out;
}

// The line after the engine prefix: opcode, operands, attributes, sync.
std::string FormatBody(const Kernel& k, const Instruction& inst) {
  const std::string operands = FormatOperands(k, inst);
  return OpcodeName(inst.opcode) + (operands.empty() ? "" : " " + operands) + FormatSync(k, inst);
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
    out += "\n";
  }
  return out;
}

// The stream an instruction sits in decides the engine that runs it, so the
// prefix comes from the stream rather than from Instruction::engine.
// Calls line(text) for each instruction line and line("\n") between engine groups.
void ForEachStreamLine(const Kernel& k, const std::function<void(const std::string&)>& line) {
  bool first = true;
  for (int e = 0; e < kNumEngines; ++e) {
    if (k.streams[e].empty()) continue;
    if (!first) line("\n");
    first = false;
    const std::string prefix =
        PadRight(std::string(EngineName(static_cast<EngineId>(e))) + ":", kEnginePrefixWidth);
    for (const Instruction& inst : k.streams[e]) line(prefix + FormatBody(k, inst) + "\n");
  }
}

std::string FormatStreams(const Kernel& k) {
  std::string out;
  ForEachStreamLine(k, [&out](const std::string& line) { out += line; });
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

// While FormatKernelPieces runs on this thread: the text of every access
// pattern printed so far, by its content (a long kernel names the same tiles
// again and again, and finding the shortest slice text is the costly part).
thread_local std::unordered_map<std::string, std::string>* ap_memo = nullptr;

std::string MemoKey(const AccessPattern& ap) {
  std::string key;
  key.reserve(sizeof(int) + 2 * sizeof(int64_t) + ap.dims.size() * sizeof(ApDim));
  key.append(reinterpret_cast<const char*>(&ap.tensor), sizeof ap.tensor);
  key.append(reinterpret_cast<const char*>(&ap.partition_start), sizeof ap.partition_start);
  key.append(reinterpret_cast<const char*>(&ap.offset), sizeof ap.offset);
  for (const ApDim& d : ap.dims) {
    key.append(reinterpret_cast<const char*>(&d.stride), sizeof d.stride);
    key.append(reinterpret_cast<const char*>(&d.size), sizeof d.size);
  }
  return key;
}

std::string FormatAccessPatternUncached(const Kernel& k, const AccessPattern& ap);

}  // namespace

std::string FormatAccessPattern(const Kernel& k, const AccessPattern& ap) {
  if (ap_memo == nullptr) return FormatAccessPatternUncached(k, ap);
  std::string key = MemoKey(ap);
  const auto it = ap_memo->find(key);
  if (it != ap_memo->end()) return it->second;
  return ap_memo->emplace(std::move(key), FormatAccessPatternUncached(k, ap)).first->second;
}

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

std::string FormatOperands(const Kernel& k, const Instruction& inst) {
  const AccessPattern* positional[] = {&inst.dst, &inst.src0, &inst.src1};
  std::vector<std::string> aps;
  for (int i = 0; i < NumApOperands(inst.opcode); ++i) aps.push_back(FormatAccessPattern(k, *positional[i]));
  std::string out = Join(aps, ", ");
  const Instruction defaults = kernel_syntax::OpcodeDefaults(inst.opcode);
  for (const AttrDef& a : kernel_syntax::SyntaxOf(inst.opcode).attrs) {
    if (!ShouldPrint(inst, defaults, a)) continue;
    const std::string value =
        std::visit([&](auto member) { return ValueFormatter{k}(inst.*member); }, a.field);
    out += (out.empty() ? "" : " ") + std::string(a.key) + "=" + value;
  }
  return out;
}

std::string FormatInstruction(const Kernel& k, const Instruction& inst) {
  return std::string(EngineName(inst.engine)) + ": " + FormatBody(k, inst);
}

void FormatKernelPieces(const Kernel& k, const std::function<void(const std::string&)>& piece) {
  // Memoise access pattern texts for this kernel (restored on exit, also on a throw).
  std::unordered_map<std::string, std::string> memo;
  struct Scope {
    std::unordered_map<std::string, std::string>* saved;
    ~Scope() { ap_memo = saved; }
  } scope{ap_memo};
  ap_memo = &memo;
  piece("kernel " + k.name + "\n");
  if (!k.tensors.empty()) piece("\n" + FormatTensors(k));
  std::string sems;
  for (const std::string& s : k.semaphores) sems += "semaphore " + s + "\n";
  if (!sems.empty()) piece("\n" + sems);
  bool first = true;
  ForEachStreamLine(k, [&](const std::string& line) {
    if (first) piece("\n");  // the streams section follows a blank line
    first = false;
    piece(line);
  });
}

std::string FormatKernel(const Kernel& k) {
  std::string out;
  FormatKernelPieces(k, [&out](const std::string& piece) { out += piece; });
  return out;
}

}  // namespace nsim
