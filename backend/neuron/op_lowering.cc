#include "backend/neuron/op_lowering.h"

#include <map>
#include <optional>

#include "backend/meta/shape_functions.h"
#include "sim/base/error.h"

namespace nsim {
namespace neuron {
namespace {

using codegen::Graph;
using codegen::OpKind;
using codegen::ValueId;

// alpha of add/sub (a + alpha * b); 1 for ops without one.
double Alpha(const OpOperands& op, size_t i) {
  const at::IValue a = op.Constant(i);
  return a.isScalar() ? a.toDouble() : 1.0;
}

// A number operand rounded to a bfloat16 / float16 `other`, as ATen casts
// it before a comparison or pow (add, mul, ... take the number unrounded).
ValueId RoundedNumber(Graph& g, ValueId number, ValueId other) {
  const codegen::Node& n = g.node(number);
  const DType t = g.node(other).dtype;
  if (n.kind != OpKind::kConstant || g.node(other).kind == OpKind::kConstant || !IsFloat16Bit(t)) return number;
  return g.Constant(RoundTo(t, static_cast<float>(n.scalar)));
}

template <OpKind K>
ValueId Binary(Graph& g, OpOperands& op) {
  ValueId a = op.Operand(0), b = op.Operand(1);
  if (K == OpKind::kPow) {
    a = RoundedNumber(g, a, b);
    b = RoundedNumber(g, b, a);
  }
  return g.Binary(K, a, b, op.out_dtype(), Alpha(op, 2));
}

// A comparison computes in its operands' dtype: a number compared with a
// bfloat16 / float16 value is rounded to it first, as ATen casts it (eager
// kernels cast tensor operands before the graph: pointwise_ops.cc).
template <OpKind K>
ValueId Compare(Graph& g, OpOperands& op) {
  ValueId a = op.Operand(0), b = op.Operand(1);
  a = RoundedNumber(g, a, b);
  b = RoundedNumber(g, b, a);
  return g.Binary(K, a, b, op.out_dtype());
}

// rsub(self, other, alpha) = other - alpha * self.
ValueId Rsub(Graph& g, OpOperands& op) {
  return g.Binary(OpKind::kSub, op.Operand(1), op.Operand(0), op.out_dtype(), Alpha(op, 2));
}

template <OpKind K>
ValueId Unary(Graph& g, OpOperands& op) {
  return g.Unary(K, op.Operand(0), op.out_dtype());
}

ValueId Gelu(Graph& g, OpOperands& op) {
  const at::IValue approximate = op.Constant(1);
  const bool tanh = at::IsGeluTanh(approximate.isString() ? approximate.toStringRef() : "none");
  return g.Unary(tanh ? OpKind::kGeluTanh : OpKind::kGelu, op.Operand(0), op.out_dtype());
}

ValueId Pow(Graph& g, OpOperands& op) { return g.Pow(op.Operand(0), op.Constant(1).toDouble(), op.out_dtype()); }

ValueId Cast(Graph& g, OpOperands& op) { return ExactCast(g, op.Operand(0), op.out_dtype()); }

// Over the innermost dim; the codegen keeps the reduced dim (size 1), so a
// result without it (keepdim=false) is a view.
template <OpKind K>
ValueId Reduce(Graph& g, OpOperands& op) {
  const ValueId r = g.RowReduce(K, op.Operand(0), op.out_dtype());
  return g.node(r).sizes == op.out_sizes() ? r : g.View(r, op.out_sizes());
}

// where.self(condition, self, other): the operands in the result's dtype
// first (ATen's promotion: a float32 number selected into a bfloat16 result
// is that number rounded), so a fused graph carries what eager stores.
ValueId Where(Graph& g, OpOperands& op) {
  const DType out = op.out_dtype();
  auto in_result_type = [&](ValueId v) {
    const codegen::Node& n = g.node(v);
    if (n.kind == OpKind::kConstant) return n.dtype == out ? v : g.Constant(RoundTo(out, static_cast<float>(n.scalar)), out);
    return n.dtype == out ? v : ExactCast(g, v, out);
  };
  const ValueId a = in_result_type(op.Operand(1)), b = in_result_type(op.Operand(2));
  return g.Where(op.Operand(0), a, b, out);
}

// threshold_backward(grad, self, threshold): self <= threshold ? 0 : grad,
// compared in fp32 with the float threshold (ATen's kernel widens bfloat16
// self and does not round the threshold to it), one fused kernel for ReLU's
// backward. Its composite (composite/select_ops.cc) is the same le and where.
ValueId ThresholdBackward(Graph& g, OpOperands& op) {
  const DType out = op.out_dtype();
  const ValueId self = op.Operand(1);
  const float threshold = static_cast<float>(op.Constant(2).toDouble());
  const ValueId below = g.Binary(OpKind::kLe, self, g.Constant(threshold), DType::kBool);
  ValueId grad = op.Operand(0);
  if (g.node(grad).dtype != out) grad = ExactCast(g, grad, out);
  return g.Where(below, g.Constant(0.0, out), grad, out);
}

ValueId Matmul(Graph& g, OpOperands& op) { return g.Matmul(op.Operand(0), op.Operand(1), op.out_dtype()); }

const std::map<std::string, OpEmitter>& Table() {
  static const auto* table = new std::map<std::string, OpEmitter>{
#define NSIM_BINARY_ALPHA(name, Name, E) \
  {"aten::" #name ".Tensor", &E<OpKind::k##Name>}, {"aten::" #name ".Scalar", &E<OpKind::k##Name>},
#define NSIM_BINARY_SCALAR NSIM_BINARY_ALPHA
#define NSIM_BINARY_PLAIN(name, Name, E) {"aten::" #name, &E<OpKind::k##Name>},
#define NSIM_BINARY_EXPONENT(name, Name, E) \
  {"aten::" #name ".Tensor_Tensor", &E<OpKind::k##Name>}, {"aten::" #name ".Scalar", &E<OpKind::k##Name>},
#define NSIM_EMITTER_kResultType Binary
#define NSIM_EMITTER_kIntToFloat Binary
#define NSIM_EMITTER_kNoBool Binary
#define NSIM_EMITTER_kLogical Binary
#define NSIM_EMITTER_kCompare Compare
#define NSIM_BINARY_FORM(form, name, Name, E) NSIM_BINARY_##form(name, Name, E)
#define NSIM_BINARY_OP(name, Name, form, promotion, ...) NSIM_BINARY_FORM(form, name, Name, NSIM_EMITTER_##promotion)
#include "backend/binary_ops.def"
#undef NSIM_BINARY_ALPHA
#undef NSIM_BINARY_SCALAR
#undef NSIM_BINARY_PLAIN
#undef NSIM_BINARY_EXPONENT
#undef NSIM_BINARY_FORM
#undef NSIM_EMITTER_kResultType
#undef NSIM_EMITTER_kIntToFloat
#undef NSIM_EMITTER_kNoBool
#undef NSIM_EMITTER_kLogical
#undef NSIM_EMITTER_kCompare
      {"aten::rsub.Scalar", &Rsub},
#define NSIM_UNARY_OP(name, Name, ...) {"aten::" #name, &Unary<OpKind::k##Name>},
#include "backend/unary_ops.def"
      {"aten::square", &Unary<OpKind::kSquare>},
      {"aten::gelu", &Gelu},
      {"aten::pow.Tensor_Scalar", &Pow},
      {"aten::to.dtype", &Cast},
      {"aten::_to_copy", &Cast},
#define NSIM_REDUCTION_OP(name, Name, form, overload, ...) {"aten::" #name overload, &Reduce<OpKind::kRow##Name>},
#include "backend/reduction_ops.def"
      {"aten::where.self", &Where},
      {"aten::threshold_backward", &ThresholdBackward},
      {"aten::mm", &Matmul},
      {"aten::bmm", &Matmul},
      {"aten::matmul", &Matmul},
  };
  return *table;
}

}  // namespace

namespace {

// The integer types below int32 and their range: [lo, lo + 2^bits).
struct NarrowInt {
  double modulus;  // 2^bits
  double lowest;   // 0 (unsigned) or -2^(bits-1)
};
std::optional<NarrowInt> Narrow(DType t) {
  switch (t) {
    case DType::kU8: return NarrowInt{256.0, 0.0};
    case DType::kI8: return NarrowInt{256.0, -128.0};
    case DType::kI16: return NarrowInt{65536.0, -32768.0};
    default: return std::nullopt;
  }
}

ValueId Trunc(Graph& g, ValueId v) {  // x - frac(x): exact in fp32
  return g.Binary(OpKind::kSub, v, g.Unary(OpKind::kFrac, v, DType::kF32), DType::kF32);
}

// An integer-valued t wrapped into [lowest, lowest + modulus), as two's
// complement narrowing wraps: r = t - M trunc(t / M) (C's fmod; t / M and the
// product are exact, powers of two), then r + M if r < lowest, r - M if
// r >= lowest + M. Every step is exact in fp32 for any integer-valued t (a t
// of 2^24 or more is a multiple of its ulp, so r is too); NaN and inf stay
// NaN, which the store writes as 0.
ValueId Wrap(Graph& g, ValueId t, const NarrowInt& n) {
  const ValueId q = Trunc(g, g.Binary(OpKind::kMul, t, g.Constant(1.0 / n.modulus), DType::kF32));
  ValueId r = g.Binary(OpKind::kSub, t, q, DType::kF32, n.modulus);
  const ValueId below = g.Binary(OpKind::kLt, r, g.Constant(n.lowest), DType::kF32);
  r = g.Binary(OpKind::kAdd, r, below, DType::kF32, n.modulus);
  if (n.lowest == 0.0) return r;  // unsigned: r was in (-M, M)
  const ValueId above = g.Binary(OpKind::kGe, r, g.Constant(n.lowest + n.modulus), DType::kF32);
  return g.Binary(OpKind::kSub, r, above, DType::kF32, n.modulus);
}

}  // namespace

ValueId ExactCast(Graph& g, ValueId v, DType out) {
  const DType in = g.node(v).dtype;
  if (in == out) return g.Cast(v, out);
  if (out == DType::kBool) return g.Binary(OpKind::kNe, v, g.Constant(0.0), DType::kBool);
  const std::optional<NarrowInt> narrow = Narrow(out);
  if (codegen::IsFloat(in) && out == DType::kI32) {
    // PyTorch (x86-64's cvttss2si) gives INT32_MIN outside int32 and for NaN
    // (the store would saturate): t where |t| < 2^31, else -2^31. The
    // masked t goes through an int32 value (its store turns NaN into 0).
    const ValueId t = Trunc(g, v);
    const ValueId in_range =
        g.Binary(OpKind::kLt, g.Unary(OpKind::kAbs, t, DType::kF32), g.Constant(2147483648.0), DType::kF32);
    const ValueId kept = g.Cast(g.Binary(OpKind::kMul, t, in_range, DType::kF32), DType::kI32);
    const ValueId outside = g.Binary(OpKind::kEq, in_range, g.Constant(0.0), DType::kF32);
    return g.Cast(g.Binary(OpKind::kAdd, kept, outside, DType::kF32, -2147483648.0), out);
  }
  if (codegen::IsFloat(in) && narrow) {
    // PyTorch (x86-64) truncates through int32 (int64 for uint8) and wraps;
    // a value outside int32 gives 0 in the low 16 bits: the range mask (its
    // NaN stays NaN and stores 0). Below 16 bits every such value is a
    // multiple of 256 and wraps to 0 anyway.
    const ValueId t = Trunc(g, v);
    ValueId w = Wrap(g, t, *narrow);
    if (out == DType::kI16) {
      const ValueId abs = g.Unary(OpKind::kAbs, t, DType::kF32);
      w = g.Binary(OpKind::kMul, w, g.Binary(OpKind::kLt, abs, g.Constant(2147483648.0), DType::kF32), DType::kF32);
    }
    return g.Cast(w, out);
  }
  if (narrow && DTypeSize(in) >= DTypeSize(out) && in != DType::kBool) {
    // An integer narrowed (or uint8 <-> int8): the engines read it in fp32,
    // exact up to 2^24, so int32 sources are refused here (eager copies move
    // their low bytes instead: copy_ops.cc).
    if (in == DType::kI32) {
      throw SimError(std::string("codegen: cast i32 to ") + DTypeName(out) +
                     " is not exact in fp32 on the engines (values beyond 2^24)");
    }
    return g.Cast(Wrap(g, v, *narrow), out);
  }
  return g.Cast(v, out);
}

OpEmitter FindOpLowering(const std::string& full_name) {
  auto it = Table().find(full_name);
  return it == Table().end() ? nullptr : it->second;
}

ValueId EmitOp(Graph& g, const std::string& full_name, OpOperands& op) {
  const OpEmitter emit = FindOpLowering(full_name);
  if (emit == nullptr) throw SimError(full_name + ": the Neuron backend has no lowering for it");
  return emit(g, op);
}

EagerOperands::EagerOperands(Graph* g, std::vector<ValueId> values, std::vector<at::IValue> constants, DType out,
                             std::vector<int64_t> out_sizes)
    : g_(g), values_(std::move(values)), constants_(std::move(constants)), out_(out),
      out_sizes_(std::move(out_sizes)) {}

ValueId EagerOperands::Operand(size_t i) {
  if (i < values_.size() && values_[i] >= 0) return values_[i];
  return g_->Constant(Constant(i).toDouble());
}

at::IValue EagerOperands::Constant(size_t i) const { return i < constants_.size() ? constants_[i] : at::IValue(); }

}  // namespace neuron
}  // namespace nsim
