#include "sim/kernel/builder.h"

#include <cctype>

#include "sim/base/checked.h"
#include "sim/base/error.h"
#include "sim/kernel/syntax.h"

namespace nsim {
namespace {

[[noreturn]] void Fail(const std::string& msg) { throw SimError(msg); }

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

std::string ToString(__int128 v) {
  if (v >= INT64_MIN && v <= INT64_MAX) return std::to_string(static_cast<int64_t>(v));
  return v < 0 ? "-huge" : "huge";
}

std::string FormatSizes(const ApDims& dims) {
  std::string out;
  for (const ApDim& d : dims) out += (out.empty() ? "" : " x ") + std::to_string(d.size);
  return out;
}

bool OnChip(const TensorDecl& t) { return t.space != MemSpace::kHbm; }

[[noreturn]] void NoTensor(const Kernel& k, int t) {
  Fail("no tensor with index " + std::to_string(t) + " in kernel " + Quoted(k.name));
}

inline const TensorDecl& TensorAt(const Kernel& k, int t) {
  if (t < 0 || t >= static_cast<int>(k.tensors.size())) NoTensor(k, t);
  return k.tensors[t];
}

void CheckNewName(const Kernel& k, const std::string& name) {
  if (!IsIdentifier(name)) {
    Fail("invalid name " + Quoted(name) + " (a name is [A-Za-z_][A-Za-z0-9_]* and not 'inf' or 'nan')");
  }
  const int t = k.FindTensor(name);
  if (t >= 0) {
    const int line = k.tensors[t].line;
    Fail("duplicate name " + Quoted(name) + ": already declared as a tensor" +
         (line > 0 ? " on line " + std::to_string(line) : ""));
  }
  if (k.FindSemaphore(name) >= 0) {
    Fail("duplicate name " + Quoted(name) + ": already declared as a semaphore");
  }
}

void CheckShape(const std::string& name, MemSpace space, DType dtype, const std::vector<int64_t>& shape) {
  if (shape.empty()) Fail("tensor " + Quoted(name) + " needs at least one dim");
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] <= 0) {
      Fail("dim " + std::to_string(i) + " of tensor " + Quoted(name) + " is " + std::to_string(shape[i]) +
           ", must be > 0");
    }
  }
  // Every size derived from the shape later (strides, bytes, offsets) is at most these two.
  const std::string elements = "tensor " + Quoted(name) + " is too large: its element count";
  const int64_t total = CheckedProduct(shape, 0, elements.c_str());
  const std::string bytes = "tensor " + Quoted(name) + " is too large: its size in bytes (" + DTypeName(dtype) + ")";
  CheckedMul(total, DTypeSize(dtype), bytes.c_str());
  if (space != MemSpace::kHbm && shape[0] > kMaxPartitions) {
    Fail("partition dim of " + std::string(MemSpaceName(space)) + " tensor " + Quoted(name) + " is " +
         std::to_string(shape[0]) + ", must be 1.." + std::to_string(kMaxPartitions));
  }
}

// Row-major element strides of shape[from:], indexed like shape.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape, size_t from) {
  std::vector<int64_t> strides(shape.size(), 0);
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > from;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

std::string DimName(const TensorDecl& t, size_t dim) {
  const std::string which = dim == 0 && OnChip(t) ? "partition dim" : "dim " + std::to_string(dim);
  return which + " of tensor " + Quoted(t.name) + " (size " + std::to_string(t.shape[dim]) + ")";
}

// A SliceSpec checked against one dim.
struct Resolved {
  int64_t start, count, step;
  bool drop;
};

Resolved Resolve(const SliceSpec& s, const TensorDecl& t, size_t dim) {
  const int64_t size = t.shape[dim];
  // Formatted only for an error: a loop body line resolves its slices at every iteration.
  const auto text = [&s] { return FormatSliceSpec(s); };
  if (s.index) {
    if (s.start < 0 || s.start >= size) Fail("index " + text() + " out of bounds for " + DimName(t, dim));
    return {s.start, 1, 1, true};
  }
  if (s.step <= 0) Fail("slice " + text() + " of " + DimName(t, dim) + " needs a positive step");
  const int64_t stop = s.stop == SliceSpec::kEnd ? size : s.stop;
  if (s.start < 0 || s.start >= size || stop > size) {
    Fail("slice " + text() + " out of bounds for " + DimName(t, dim));
  }
  if (s.start >= stop) Fail("slice " + text() + " of " + DimName(t, dim) + " is empty");
  return {s.start, 1 + (stop - s.start - 1) / s.step, s.step, false};
}

}  // namespace

std::string FormatSliceSpec(const SliceSpec& s) {
  if (s.index) return std::to_string(s.start);
  std::string out = s.start != 0 ? std::to_string(s.start) : "";
  out += ":";
  if (s.stop != SliceSpec::kEnd) out += std::to_string(s.stop);
  if (s.step != 1) out += ":" + std::to_string(s.step);
  return out;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || s == "inf" || s == "nan") return false;
  if (!std::isalpha(static_cast<unsigned char>(s[0])) && s[0] != '_') return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

int AddTensor(Kernel& k, const std::string& name, MemSpace space, DType dtype, std::vector<int64_t> shape,
              TensorInit init) {
  CheckNewName(k, name);
  CheckShape(name, space, dtype, shape);
  if (init.kind != TensorInit::kNone && space != MemSpace::kHbm) {
    Fail("init= is only valid for hbm tensors (" + Quoted(name) + " is " + MemSpaceName(space) + ")");
  }
  TensorDecl t;
  t.name = name;
  t.space = space;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.init = init;
  k.tensors.push_back(std::move(t));
  return static_cast<int>(k.tensors.size()) - 1;
}

int AddSemaphore(Kernel& k, const std::string& name) {
  CheckNewName(k, name);
  k.semaphores.push_back(name);
  return static_cast<int>(k.semaphores.size()) - 1;
}

AccessPattern Full(const Kernel& k, int tensor) { return Slice(k, tensor, {}); }

AccessPattern Slice(const Kernel& k, int tensor, const std::vector<SliceSpec>& idx) {
  const TensorDecl& t = TensorAt(k, tensor);
  if (idx.size() > t.shape.size()) {
    Fail("too many indices (" + std::to_string(idx.size()) + ") for tensor " + Quoted(t.name) + " with " +
         std::to_string(t.shape.size()) + " dims");
  }
  AccessPattern ap;
  ap.tensor = tensor;
  std::vector<ApDim> dims;
  const size_t first_free = OnChip(t) ? 1 : 0;
  const std::vector<int64_t> strides = RowMajorStrides(t.shape, first_free);
  for (size_t i = 0; i < t.shape.size(); ++i) {
    const SliceSpec spec = i < idx.size() ? idx[i] : SliceSpec::All();
    const Resolved r = Resolve(spec, t, i);
    if (i < first_free) {  // the partition dim: a contiguous range, never dropped
      if (r.step != 1) {
        Fail("partition index " + FormatSliceSpec(spec) + " of tensor " + Quoted(t.name) +
             " must be contiguous (step 1)");
      }
      ap.partition_start = r.start;
      dims.push_back({1, r.count});
      continue;
    }
    ap.offset += r.start * strides[i];
    int64_t stride = 0;
    if (__builtin_mul_overflow(strides[i], r.step, &stride)) {
      Fail("step of " + FormatSliceSpec(spec) + " is too large for " + DimName(t, i));
    }
    if (!r.drop) dims.push_back({stride, r.count});
  }
  if (dims.empty()) dims.push_back({1, 1});
  ap.dims = dims;
  return ap;
}

AccessPattern Ap(const Kernel& k, int tensor, int64_t offset, std::vector<ApDim> dims) {
  const TensorDecl& t = TensorAt(k, tensor);
  if (dims.empty()) Fail(".ap of tensor " + Quoted(t.name) + " needs at least one [stride, size] pair");
  if (offset < 0)
    Fail(".ap offset " + std::to_string(offset) + " of tensor " + Quoted(t.name) + " is negative");
  AccessPattern ap;
  ap.tensor = tensor;
  ap.offset = offset;
  ap.dims = dims;
  if (OnChip(t)) {
    const int64_t free = t.FreeElements();
    if (ap.dims[0].stride != free) {
      Fail("the first .ap pair of on-chip tensor " + Quoted(t.name) +
           " is the partition pair: its stride must be " + std::to_string(free) + " (the free size), not " +
           std::to_string(ap.dims[0].stride));
    }
    ap.partition_start = offset / free;
    ap.offset = offset % free;
    ap.dims = ap.dims.With(0, {1, ap.dims[0].size});
  }
  CheckAccessPattern(k, ap);
  return ap;
}

void CheckAccessPattern(const Kernel& k, const AccessPattern& ap) {
  const TensorDecl& t = TensorAt(k, ap.tensor);
  // Built only for an error message: this check runs on every operand at load.
  const auto of = [&t] { return " of the access to tensor " + Quoted(t.name); };
  if (ap.dims.empty()) Fail("no dims" + of());
  for (size_t i = 0; i < ap.dims.size(); ++i) {
    if (ap.dims[i].size <= 0)
      Fail("size " + std::to_string(ap.dims[i].size) + " of dim " + std::to_string(i) + of() + " must be > 0");
    if (ap.dims[i].stride < 0) Fail("negative stride " + std::to_string(ap.dims[i].stride) + of());
  }
  size_t first_free = 0;
  int64_t limit = 0;
  if (!OnChip(t)) {
    limit = t.NumElements();
  } else {
    if (ap.dims[0].stride != 1) Fail("the partition dim" + of() + " must have stride 1");
    const __int128 end = static_cast<__int128>(ap.partition_start) + ap.dims[0].size;
    if (ap.partition_start < 0 || end > t.shape[0]) {
      Fail("partitions [" + std::to_string(ap.partition_start) + ", " + ToString(end) + ")" + of() +
           " are outside [0, " + std::to_string(t.shape[0]) + ")");
    }
    first_free = 1;
    limit = t.FreeElements();
  }
  // The last element the walk reaches. Sizes and strides are non-negative,
  // so an overflow can only mean "far beyond the tensor".
  int64_t last = ap.offset;
  bool beyond = false;
  for (size_t i = first_free; i < ap.dims.size() && !beyond; ++i) {
    int64_t span = 0;
    beyond = __builtin_mul_overflow(ap.dims[i].size - 1, ap.dims[i].stride, &span) ||
             __builtin_add_overflow(last, span, &last);
  }
  if (ap.offset < 0 || beyond || last >= limit) {
    Fail("elements [" + std::to_string(ap.offset) + ", " + (beyond ? "beyond 2^63" : std::to_string(last)) +
         "]" + of() + " are outside [0, " + std::to_string(limit) + ")" + (first_free ? " within a partition" : ""));
  }
  int64_t count = 1;
  for (const ApDim& d : ap.dims) {
    if (__builtin_mul_overflow(count, d.size, &count) || count > kMaxAccessElements) {
      Fail("the access to tensor " + Quoted(t.name) + " walks more than " + std::to_string(kMaxAccessElements) +
           " elements (the most one access may move; sizes " + FormatSizes(ap.dims) + ")");
    }
  }
}

namespace {

std::string InstructionWhere(const Kernel& k, const InstructionView& in) {
  return "kernel " + Quoted(k.name) + (in.line > 0 ? " line " + std::to_string(in.line) : "") + " (" +
         EngineName(in.engine) + " " + OpcodeName(in.opcode) + "): ";
}

void CheckSemaphoreRefs(const Kernel& k, const InstructionView& in) {
  const int n = static_cast<int>(k.semaphores.size());
  for (const SemWait& w : in.waits) {
    if (w.sem < 0 || w.sem >= n) Fail("no semaphore with index " + std::to_string(w.sem));
    if (w.value < 0) Fail("wait value " + std::to_string(w.value) + " must be >= 0");
  }
  for (const SemSignal& s : in.signals) {
    if (s.sem < 0 || s.sem >= n) Fail("no semaphore with index " + std::to_string(s.sem));
    if (s.delta < 1) Fail("signal increment " + std::to_string(s.delta) + " must be >= 1");
  }
}

}  // namespace

void CheckTensors(const Kernel& k) {
  for (const TensorDecl& t : k.tensors) {
    try {
      CheckShape(t.name, t.space, t.dtype, t.shape);
    } catch (const SimError& e) {
      Fail("kernel " + Quoted(k.name) + (t.line > 0 ? " line " + std::to_string(t.line) : "") + ": " + e.what());
    }
  }
}

void CheckInstruction(const Kernel& k, int engine, const InstructionView& in) {
  try {
    if (static_cast<int>(in.engine) != engine) Fail("instruction is in the stream of another engine");
    for (const AccessPattern* ap : {&in.dst, &in.src0, &in.src1, &in.acc, &in.scalar0.ap, &in.scalar1.ap}) {
      if (ap->present()) CheckAccessPattern(k, *ap);
    }
    CheckSemaphoreRefs(k, in);
  } catch (const SimError& err) {
    Fail(InstructionWhere(k, in) + err.what());
  }
}

void CheckKernel(const Kernel& k) {
  CheckTensors(k);
  for (int e = 0; e < kNumEngines; ++e) {
    for (const InstructionView& in : k.stream(e)) CheckInstruction(k, e, in);
  }
}

Instruction MakeInstruction(EngineId engine, Opcode op) {
  if (!OpcodeAllowedOn(op, engine)) {
    std::string engines;
    for (int e = 0; e < kNumEngines; ++e) {
      if (!OpcodeAllowedOn(op, static_cast<EngineId>(e))) continue;
      engines += std::string(engines.empty() ? "" : ", ") + EngineName(static_cast<EngineId>(e));
    }
    Fail("opcode " + Quoted(OpcodeName(op)) + " cannot run on engine " + Quoted(EngineName(engine)) +
         " (runs on: " + engines + ")");
  }
  Instruction inst = kernel_syntax::OpcodeDefaults(op);
  inst.engine = engine;
  return inst;
}

Instruction& StreamWriter::Emit(EngineId engine, Opcode op) {
  const int e = static_cast<int>(engine);
  Instruction next = MakeInstruction(engine, op);  // may throw: the pending one stays
  if (open_[e]) k_.Append(pending_[e]);
  pending_[e] = std::move(next);
  open_[e] = true;
  return pending_[e];
}

void StreamWriter::Flush() {
  for (int e = 0; e < kNumEngines; ++e) {
    if (open_[e]) k_.Append(pending_[e]);
    open_[e] = false;
  }
}

}  // namespace nsim
