#include "backend/compile/lowering_rules.h"

#include <map>

#include "backend/neuron/op_lowering.h"

namespace nsim {
namespace compiler {
namespace {

using Reason = std::optional<std::string>;

// --- checks ---------------------------------------------------------------------

bool IsFloat(at::ScalarType t) { return t == at::kFloat || t == at::kBFloat16 || t == at::kHalf; }

// The device computes in floating point: every tensor operand and result
// must be float32, bfloat16 or float16 (immediates may be anything).
Reason FloatOnly(const Graph& g, const Graph::Call& c) {
  auto bad = [&](int v) -> Reason {
    const at::ScalarType t = g.value(v).meta.dtype;
    if (IsFloat(t)) return std::nullopt;
    return std::string("the neuron backend computes float32/bfloat16/float16 tensors, not ") + at::ToString(t);
  };
  for (const Arg& a : c.args) {
    if (!a.is_value()) continue;
    if (Reason r = bad(a.value)) return r;
  }
  for (int v : c.outputs) {
    if (Reason r = bad(v)) return r;
  }
  return std::nullopt;
}

bool DeviceType(at::ScalarType t) { return IsFloat(t) || t == at::kInt || t == at::kBool; }

// Comparisons: a Bool result of float operands of one dtype (a number
// operand is rounded to it by the emitter; mixed tensor dtypes, where ATen
// may round one operand, run eagerly).
Reason CompareOperands(const Graph& g, const Graph::Call& c) {
  std::optional<at::ScalarType> dtype;
  for (const Arg& a : c.args) {
    if (!a.is_value()) continue;
    const at::ScalarType t = g.value(a.value).meta.dtype;
    if (!IsFloat(t)) return std::string("compiled comparisons take float tensors, not ") + at::ToString(t);
    if (dtype && *dtype != t) return std::string("compiled comparisons take tensors of one dtype");
    dtype = t;
  }
  return std::nullopt;
}

// Logical ops and casts: any dtypes the device holds (their values are exact
// in fp32: truth is non-zero, casts as op_lowering's ExactCast).
Reason DeviceTypes(const Graph& g, const Graph::Call& c) {
  std::vector<int> values = c.outputs;
  for (const Arg& a : c.args) {
    if (a.is_value()) values.push_back(a.value);
  }
  for (int v : values) {
    const at::ScalarType t = g.value(v).meta.dtype;
    if (!DeviceType(t)) return std::string("the neuron backend holds float, int32 and bool tensors, not ") + at::ToString(t);
  }
  return std::nullopt;
}

// where.self: a Bool condition selecting between float values (a float
// result; Bool results run eagerly, as the other Bool-closed ops do).
Reason WhereOperands(const Graph& g, const Graph::Call& c) {
  const at::ScalarType cond = g.value(c.args[0].value).meta.dtype;
  if (cond != at::kBool) return std::string("where's condition is Bool, not ") + at::ToString(cond);
  for (size_t i = 1; i < c.args.size(); ++i) {
    if (!c.args[i].is_value()) continue;
    const at::ScalarType t = g.value(c.args[i].value).meta.dtype;
    if (!IsFloat(t)) return std::string("compiled where selects float tensors, not ") + at::ToString(t);
  }
  const at::ScalarType out = g.value(c.outputs[0]).meta.dtype;
  if (!IsFloat(out)) return std::string("compiled where gives float tensors, not ") + at::ToString(out);
  return std::nullopt;
}

std::vector<int64_t> NonUnit(const at::IntList& sizes) {
  std::vector<int64_t> out;
  for (int64_t s : sizes) {
    if (s != 1) out.push_back(s);
  }
  return out;
}

// Row reductions reduce the innermost dim; other reduced dims must have size 1.
Reason InnermostReduction(const Graph& g, const Graph::Call& c) {
  if (Reason r = FloatOnly(g, c)) return r;
  const at::IntList& sizes = g.value(c.args[0].value).meta.sizes;
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  if (ndim == 0) return std::string("reduces a 0-dim tensor");
  const at::IValue& dim_arg = c.args[1].constant;
  const at::IntList dims = dim_arg.isNone() ? at::IntList{} : dim_arg.toIntList();
  const std::vector<bool> reduced = at::DimMask(dims, ndim);
  for (int64_t d = 0; d < ndim; ++d) {
    const bool r = dims.empty() || reduced[d];
    if (d == ndim - 1 && !r) return std::string("only reductions over the innermost dim are compiled");
    if (d < ndim - 1 && r && sizes[d] != 1) {
      return "reduces dim " + std::to_string(d) + " of " + at::ShapeToString(sizes) +
             "; only the innermost dim is compiled";
    }
  }
  return std::nullopt;
}

Reason MatmulShapes(const Graph& g, const Graph::Call& c) {
  if (Reason r = FloatOnly(g, c)) return r;
  const at::IntList& a = g.value(c.args[0].value).meta.sizes;
  const at::IntList& b = g.value(c.args[1].value).meta.sizes;
  const bool batch_ok = b.size() == 2 || at::IntList(a.begin(), a.end() - 2) == at::IntList(b.begin(), b.end() - 2);
  if (a.size() < 2 || b.size() < 2 || !batch_ok) {
    return "compiles [..., M, K] @ [K, N] and equal-batch products, not " + at::ShapeToString(a) + " @ " +
           at::ShapeToString(b);
  }
  return std::nullopt;
}

// On a computed value (in SBUF, laid out by rows) a view may only add or
// remove size-1 dims; a region input is read through any strided view.
Reason OrderPreservingView(const Graph& g, const Graph::Call& c) {
  const ValueMeta& in = g.value(c.args[0].value).meta;
  const ValueMeta& out = g.value(c.outputs[0]).meta;
  if (IsInputView(g, c.args[0].value)) {
    bool ok = true;
    at::ComputeViewStrides(in.sizes, in.strides, out.sizes, &ok);
    if (!ok) return std::string("reshaping this strided input needs a copy");
    return std::nullopt;
  }
  if (NonUnit(in.sizes) != NonUnit(out.sizes)) {
    return "a computed value may only gain or lose size-1 dims, not go from " + at::ShapeToString(in.sizes) +
           " to " + at::ShapeToString(out.sizes);
  }
  return std::nullopt;
}

Reason InputOnlyView(const Graph& g, const Graph::Call& c) {
  if (IsInputView(g, c.args[0].value)) return std::nullopt;
  return std::string("only region inputs can be transposed, broadcast or sliced (they are read through strided "
                     "DMA); this value is computed inside the region");
}

// --- lowering: the Neuron backend's one per-op table (backend/neuron/op_lowering.h) ---

// A captured call's arguments as the shared emitters read them.
class CallOperands : public neuron::OpOperands {
 public:
  CallOperands(LowerContext& ctx, const Graph::Call& c)
      : ctx_(ctx), call_(c), meta_(ctx.source().value(c.outputs[0]).meta) {}
  cg::ValueId Operand(size_t i) override { return ctx_.Operand(call_, i); }
  at::IValue Constant(size_t i) const override { return i < call_.args.size() ? call_.args[i].constant : at::IValue(); }
  DType out_dtype() const override { return at::ToSimDType(meta_.dtype); }
  const std::vector<int64_t>& out_sizes() const override { return meta_.sizes; }

 private:
  LowerContext& ctx_;
  const Graph::Call& call_;
  const ValueMeta& meta_;
};

cg::ValueId LowerShared(LowerContext& ctx, const Graph::Call& c) {
  CallOperands operands(ctx, c);
  return neuron::EmitOp(ctx.graph(), c.op.schema().full_name(), operands);
}

// --- the table ------------------------------------------------------------------

using Kind = LoweringRule::Kind;

// Compute rules lower through the shared table; they differ only in their check.
LoweringRule Compute(Reason (*check)(const Graph&, const Graph::Call&) = &FloatOnly) {
  return LoweringRule{Kind::kCompute, check, &LowerShared};
}

const std::map<std::string, LoweringRule>& Rules() {
  static const auto* rules = new std::map<std::string, LoweringRule>{
#define NSIM_REDUCTION_OP(name, Name, form, overload, ...) {"aten::" #name overload, Compute(&InnermostReduction)},
#include "backend/reduction_ops.def"
#define NSIM_BINARY_OP(name, Name, form, promotion, ...) NSIM_BINARY_RULE_##promotion(name)
#define NSIM_BINARY_RULE_kResultType(name)
#define NSIM_BINARY_RULE_kIntToFloat(name)
#define NSIM_BINARY_RULE_kNoBool(name)
#define NSIM_BINARY_RULE_kCompare(name) \
  {"aten::" #name ".Tensor", Compute(&CompareOperands)}, {"aten::" #name ".Scalar", Compute(&CompareOperands)},
#define NSIM_BINARY_RULE_kLogical(name) {"aten::" #name, Compute(&DeviceTypes)},
#include "backend/binary_ops.def"
#undef NSIM_BINARY_RULE_kResultType
#undef NSIM_BINARY_RULE_kIntToFloat
#undef NSIM_BINARY_RULE_kNoBool
#undef NSIM_BINARY_RULE_kCompare
#undef NSIM_BINARY_RULE_kLogical
#define NSIM_UNARY_OP(name, Name, kind, ...) NSIM_UNARY_RULE_##kind(name)
#define NSIM_UNARY_RULE_kKeep(name)
#define NSIM_UNARY_RULE_kNoBool(name)
#define NSIM_UNARY_RULE_kIntToFloat(name)
#define NSIM_UNARY_RULE_kFloatOnly(name)
#define NSIM_UNARY_RULE_kToBool(name) {"aten::" #name, Compute(&DeviceTypes)},
#include "backend/unary_ops.def"
#undef NSIM_UNARY_RULE_kKeep
#undef NSIM_UNARY_RULE_kNoBool
#undef NSIM_UNARY_RULE_kIntToFloat
#undef NSIM_UNARY_RULE_kFloatOnly
#undef NSIM_UNARY_RULE_kToBool
      {"aten::to.dtype", Compute(&DeviceTypes)},
      {"aten::_to_copy", Compute(&DeviceTypes)},
      {"aten::where.self", Compute(&WhereOperands)},
      {"aten::mm", Compute(&MatmulShapes)},
      {"aten::bmm", Compute(&MatmulShapes)},
      {"aten::matmul", Compute(&MatmulShapes)},
      {"aten::view", {Kind::kView, &OrderPreservingView, nullptr}},
      {"aten::reshape", {Kind::kView, &OrderPreservingView, nullptr}},
      {"aten::unsqueeze", {Kind::kView, &OrderPreservingView, nullptr}},
      {"aten::squeeze", {Kind::kView, &OrderPreservingView, nullptr}},
      {"aten::squeeze.dim", {Kind::kView, &OrderPreservingView, nullptr}},
      {"aten::expand", {Kind::kView, &InputOnlyView, nullptr}},
      {"aten::transpose.int", {Kind::kView, &InputOnlyView, nullptr}},
      {"aten::t", {Kind::kView, &InputOnlyView, nullptr}},
      {"aten::permute", {Kind::kView, &InputOnlyView, nullptr}},
      {"aten::slice.Tensor", {Kind::kView, &InputOnlyView, nullptr}},
      {"aten::narrow", {Kind::kView, &InputOnlyView, nullptr}},
      {"aten::select.int", {Kind::kView, &InputOnlyView, nullptr}},
      {"aten::clone", {Kind::kIdentity, nullptr, nullptr}},
      {"aten::contiguous", {Kind::kIdentity, nullptr, nullptr}},
  };
  return *rules;
}

}  // namespace

// Rules with a check of their own are in Rules(); any other op the shared
// per-op table lowers is elementwise: a compute rule checking float dtypes.
const LoweringRule* FindLoweringRule(const at::OperatorHandle& op) {
  static const LoweringRule elementwise = Compute();
  const std::string& name = op.schema().full_name();
  auto it = Rules().find(name);
  if (it != Rules().end()) return &it->second;
  return neuron::FindOpLowering(name) != nullptr ? &elementwise : nullptr;
}

bool KeepsLayout(const Graph& g, const Graph::Call& c) {
  const ValueMeta& in = g.value(c.args[0].value).meta;
  const ValueMeta& out = g.value(c.outputs[0]).meta;
  return in.sizes == out.sizes && in.strides == out.strides && in.storage_offset == out.storage_offset;
}

bool IsInputView(const Graph& g, int v) {
  const Graph::Value& value = g.value(v);
  if (value.producer < 0) return true;
  const Graph::Call& c = g.calls()[value.producer];
  const LoweringRule* rule = FindLoweringRule(c.op);
  if (rule == nullptr || rule->kind == Kind::kCompute) return false;
  // A clone into another layout (contiguous() of a transpose) is a new
  // tensor: views of it index its own storage, not the input's.
  if (rule->kind == Kind::kIdentity && !KeepsLayout(g, c)) return false;
  return IsInputView(g, c.args[0].value);
}

}  // namespace compiler
}  // namespace nsim
