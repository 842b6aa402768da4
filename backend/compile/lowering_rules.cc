#include "backend/compile/lowering_rules.h"

#include <map>

namespace nsim {
namespace compiler {
namespace {

using cg::OpKind;
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

// --- lowering ---------------------------------------------------------------------

DType OutType(LowerContext& ctx, const Graph::Call& c) {
  return at::ToSimDType(ctx.source().value(c.outputs[0]).meta.dtype);
}

// alpha of add/sub (a + alpha * b); 1 for ops without one.
double Alpha(const Graph::Call& c, size_t i) {
  return c.args.size() > i && c.args[i].constant.isScalar() ? c.args[i].constant.toDouble() : 1.0;
}

template <OpKind K>
cg::ValueId Binary(LowerContext& ctx, const Graph::Call& c) {
  return ctx.graph().Binary(K, ctx.Operand(c, 0), ctx.Operand(c, 1), OutType(ctx, c), Alpha(c, 2));
}

// rsub(self, other, alpha) = other - alpha * self.
cg::ValueId Rsub(LowerContext& ctx, const Graph::Call& c) {
  return ctx.graph().Binary(OpKind::kSub, ctx.Operand(c, 1), ctx.Operand(c, 0), OutType(ctx, c), Alpha(c, 2));
}

template <OpKind K>
cg::ValueId Unary(LowerContext& ctx, const Graph::Call& c) {
  return ctx.graph().Unary(K, ctx.Operand(c, 0), OutType(ctx, c));
}

cg::ValueId Gelu(LowerContext& ctx, const Graph::Call& c) {
  const bool tanh = c.args[1].constant.toStringRef() == "tanh";
  return ctx.graph().Unary(tanh ? OpKind::kGeluTanh : OpKind::kGelu, ctx.Operand(c, 0), OutType(ctx, c));
}

cg::ValueId Pow(LowerContext& ctx, const Graph::Call& c) {
  return ctx.graph().Pow(ctx.Operand(c, 0), c.args[1].constant.toDouble(), OutType(ctx, c));
}

cg::ValueId Cast(LowerContext& ctx, const Graph::Call& c) {
  return ctx.graph().Cast(ctx.Operand(c, 0), OutType(ctx, c));
}

// The codegen keeps the reduced dim (size 1); keepdim=false drops it.
template <OpKind K>
cg::ValueId Reduce(LowerContext& ctx, const Graph::Call& c) {
  const cg::ValueId r = ctx.graph().RowReduce(K, ctx.Operand(c, 0), OutType(ctx, c));
  const at::IntList& sizes = ctx.source().value(c.outputs[0]).meta.sizes;
  return ctx.graph().node(r).sizes == sizes ? r : ctx.graph().View(r, sizes);
}

cg::ValueId Matmul(LowerContext& ctx, const Graph::Call& c) {
  return ctx.graph().Matmul(ctx.Operand(c, 0), ctx.Operand(c, 1), OutType(ctx, c));
}

// --- the table ------------------------------------------------------------------

using Kind = LoweringRule::Kind;

LoweringRule Compute(cg::ValueId (*lower)(LowerContext&, const Graph::Call&),
                     Reason (*check)(const Graph&, const Graph::Call&) = &FloatOnly) {
  return LoweringRule{Kind::kCompute, check, lower};
}

const std::map<std::string, LoweringRule>& Rules() {
  static const auto* rules = new std::map<std::string, LoweringRule>{
      {"aten::add.Tensor", Compute(&Binary<OpKind::kAdd>)},
      {"aten::add.Scalar", Compute(&Binary<OpKind::kAdd>)},
      {"aten::sub.Tensor", Compute(&Binary<OpKind::kSub>)},
      {"aten::sub.Scalar", Compute(&Binary<OpKind::kSub>)},
      {"aten::rsub.Scalar", Compute(&Rsub)},
      {"aten::mul.Tensor", Compute(&Binary<OpKind::kMul>)},
      {"aten::mul.Scalar", Compute(&Binary<OpKind::kMul>)},
      {"aten::div.Tensor", Compute(&Binary<OpKind::kDiv>)},
      {"aten::div.Scalar", Compute(&Binary<OpKind::kDiv>)},
      {"aten::maximum", Compute(&Binary<OpKind::kMaximum>)},
      {"aten::minimum", Compute(&Binary<OpKind::kMinimum>)},
      {"aten::neg", Compute(&Unary<OpKind::kNeg>)},
      {"aten::abs", Compute(&Unary<OpKind::kAbs>)},
      {"aten::exp", Compute(&Unary<OpKind::kExp>)},
      {"aten::log", Compute(&Unary<OpKind::kLog>)},
      {"aten::sqrt", Compute(&Unary<OpKind::kSqrt>)},
      {"aten::rsqrt", Compute(&Unary<OpKind::kRsqrt>)},
      {"aten::reciprocal", Compute(&Unary<OpKind::kReciprocal>)},
      {"aten::square", Compute(&Unary<OpKind::kSquare>)},
      {"aten::relu", Compute(&Unary<OpKind::kRelu>)},
      {"aten::tanh", Compute(&Unary<OpKind::kTanh>)},
      {"aten::sigmoid", Compute(&Unary<OpKind::kSigmoid>)},
      {"aten::silu", Compute(&Unary<OpKind::kSilu>)},
      {"aten::gelu", Compute(&Gelu)},
      {"aten::pow.Tensor_Scalar", Compute(&Pow)},
      {"aten::to.dtype", Compute(&Cast)},
      {"aten::_to_copy", Compute(&Cast)},
      {"aten::sum.dim_IntList", Compute(&Reduce<OpKind::kRowSum>, &InnermostReduction)},
      {"aten::mean.dim", Compute(&Reduce<OpKind::kRowMean>, &InnermostReduction)},
      {"aten::amax", Compute(&Reduce<OpKind::kRowMax>, &InnermostReduction)},
      {"aten::mm", Compute(&Matmul, &MatmulShapes)},
      {"aten::bmm", Compute(&Matmul, &MatmulShapes)},
      {"aten::matmul", Compute(&Matmul, &MatmulShapes)},
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

const LoweringRule* FindLoweringRule(const at::OperatorHandle& op) {
  auto it = Rules().find(op.schema().full_name());
  return it == Rules().end() ? nullptr : &it->second;
}

bool IsInputView(const Graph& g, int v) {
  const Graph::Value& value = g.value(v);
  if (value.producer < 0) return true;
  const Graph::Call& c = g.calls()[value.producer];
  const LoweringRule* rule = FindLoweringRule(c.op);
  return rule != nullptr && rule->kind != Kind::kCompute && IsInputView(g, c.args[0].value);
}

}  // namespace compiler
}  // namespace nsim
