#include "backend/neuron/codegen/pointwise_lowering.h"

#include <algorithm>
#include <cmath>

#include "sim/base/error.h"
#include "sim/kernel/builder.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

Scalar AsScalar(const Operand& o) { return o.kind == Operand::kImm ? Imm(o.imm) : Column(o.ap); }

bool Commutative(AluOp op) {
  return op == AluOp::kAdd || op == AluOp::kMul || op == AluOp::kMax || op == AluOp::kMin;
}

AluOp AluOf(OpKind k) {
  switch (k) {
#define NSIM_BINARY_OP(name, Name, form, promotion, cpu, alu) \
    case OpKind::k##Name: return AluOp::alu;
#include "backend/binary_ops.def"
    default: throw SimError(std::string("codegen: '") + OpKindName(k) + "' is not an ALU op");
  }
}

// `o` in the shape of a [p, cols] (or [p, 1] when `column`) tile, for
// instructions whose operands must all have the destination's shape: a
// full operand as it is, an immediate memset into a temporary, a column
// broadcast along the row as 1 * column (exact for every value, -0, inf
// and NaN included, unlike 0 + column).
AccessPattern Shaped(TileScope& s, const Operand& o, bool column, int slot) {
  if (o.kind == Operand::kFull || (column && o.kind == Operand::kColumn)) return o.ap;
  const AccessPattern t = s.Temp(column, slot);
  Instruction set = MakeInstruction(EngineId::kVector, Opcode::kMemset);
  set.dst = t;
  set.scalar0 = Imm(o.kind == Operand::kImm ? o.imm : 1.0);
  s.sched().Add(std::move(set));
  if (o.kind == Operand::kColumn) EmitTensorScalar(s, t, t, AluOp::kMul, Column(o.ap));
  return t;
}

// dst = a op b for operands of any kind (not both immediates).
void EmitAlu(TileScope& s, const AccessPattern& dst, const Operand& a, const Operand& b, AluOp op) {
  const bool af = a.kind == Operand::kFull, bf = b.kind == Operand::kFull;
  if (af == bf && a.kind != Operand::kImm && b.kind != Operand::kImm) {  // full x full, column x column
    EmitTensorTensor(s, dst, a.ap, b.ap, op);
  } else if (a.kind != Operand::kImm && (af || !bf)) {  // a is the tile, b a scalar operand
    EmitTensorScalar(s, dst, a.ap, op, AsScalar(b));
  } else if (Commutative(op)) {  // b is the tile
    EmitTensorScalar(s, dst, b.ap, op, AsScalar(a));
  } else if (op == AluOp::kSub) {  // a - b == (b * -1) + a, exactly
    EmitTensorScalar(s, dst, b.ap, AluOp::kMul, Imm(-1.0), AluOp::kAdd, AsScalar(a));
  } else if (op == AluOp::kDivide || op == AluOp::kPow) {  // the scalar first: the reversed op (NKI's reverse1=),
    // the same value as a b-shaped copy of a (memset) divided / raised by b, in one instruction
    EmitTensorScalar(s, dst, b.ap, op == AluOp::kDivide ? AluOp::kRDivide : AluOp::kRPow, AsScalar(a));
  } else {  // another non-commutative op with the scalar first: give a b's shape
    EmitTensorTensor(s, dst, Shaped(s, a, !bf, 9), b.ap, op);
  }
}

void LowerBinary(TileScope& s, const Node& n, Operand a, Operand b, const AccessPattern& dst) {
  AluOp op = AluOf(n.kind);
  const bool scaled = (n.kind == OpKind::kAdd || n.kind == OpKind::kSub) && n.scalar != 1.0;
  if (scaled) {
    // ATen computes a + alpha * b in the compute type (fp32), sub with -alpha.
    const float coef = static_cast<float>(n.kind == OpKind::kSub ? -n.scalar : n.scalar);
    op = AluOp::kAdd;
    if (b.kind == Operand::kImm) {
      b.imm = static_cast<float>(coef * static_cast<float>(b.imm));
    } else if (b.kind == Operand::kFull && a.kind != Operand::kFull) {
      EmitTensorScalar(s, dst, b.ap, AluOp::kMul, Imm(coef), AluOp::kAdd, AsScalar(a));
      return;
    } else {
      const AccessPattern t = s.Temp(b.kind == Operand::kColumn, 0);
      EmitTensorScalar(s, t, b.ap, AluOp::kMul, Imm(coef));
      b.ap = t;
    }
  }
  if (op == AluOp::kDivide && a.kind == Operand::kFull && b.kind != Operand::kFull) {
    // A tile divided by a per-row scalar: multiply by its reciprocal,
    // computed once per row (as NKI kernels do; VectorE divides cost
    // vector.reciprocal_factor per element). Within one fp32 ulp of a / b.
    op = AluOp::kMul;
    if (b.kind == Operand::kImm) {
      b.imm = 1.0f / static_cast<float>(b.imm);
    } else {
      const AccessPattern r = Shaped(s, Operand::Imm(1.0), true, 7);
      EmitTensorTensor(s, r, r, b.ap, AluOp::kDivide);
      b.ap = r;
    }
  }
  EmitAlu(s, dst, a, b, op);
}

// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in the CPU reference's order.
void LowerGeluTanh(TileScope& s, const Operand& x, const AccessPattern& dst) {
  const bool col = x.kind == Operand::kColumn;
  const AccessPattern inner = s.Temp(col, 0), half = s.Temp(col, 1);
  EmitTensorScalar(s, inner, x.ap, AluOp::kMul, Imm(0.044715f));
  EmitTensorTensor(s, inner, inner, x.ap, AluOp::kMul);
  EmitTensorTensor(s, inner, inner, x.ap, AluOp::kMul);
  EmitTensorTensor(s, inner, x.ap, inner, AluOp::kAdd);
  EmitActivation(s, inner, inner, ActFunc::kTanh, Imm(0.7978845608028654f), Imm(0));
  EmitTensorScalar(s, inner, inner, AluOp::kAdd, Imm(1.0));
  EmitTensorScalar(s, half, x.ap, AluOp::kMul, Imm(0.5));
  EmitTensorTensor(s, dst, half, inner, AluOp::kMul);
}

// Mirrors the CPU reference's special cases (exact x*x for 2, sqrt for 0.5, ...).
void LowerPow(TileScope& s, const Operand& x, double e, const AccessPattern& dst) {
  if (e == 2) return EmitActivation(s, dst, x.ap, ActFunc::kSquare, Imm(1), Imm(0));
  if (e == 0.5) return EmitActivation(s, dst, x.ap, ActFunc::kSqrt, Imm(1), Imm(0));
  if (e == -0.5) return EmitActivation(s, dst, x.ap, ActFunc::kRsqrt, Imm(1), Imm(0));
  if (e == -1) return EmitActivation(s, dst, x.ap, ActFunc::kReciprocal, Imm(1), Imm(0));
  if (e == 3) {
    const AccessPattern t = s.Temp(x.kind == Operand::kColumn, 0);
    EmitTensorTensor(s, t, x.ap, x.ap, AluOp::kMul);
    return EmitTensorTensor(s, dst, t, x.ap, AluOp::kMul);
  }
  EmitTensorScalar(s, dst, x.ap, AluOp::kPow, Imm(static_cast<float>(e)));
}

void EmitCopyPredicated(TileScope& s, const AccessPattern& dst, const AccessPattern& src, const AccessPattern& pred) {
  Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorCopyPredicated);
  in.dst = dst;
  in.src0 = src;
  in.src1 = pred;
  s.sched().Add(std::move(in));
}

// log1p(x) = log(u) * (x / (u - 1)), u = 1 + x rounded (u - 1 is exact), so
// the rounding of 1 + x cancels; x itself where u - 1 is 0 (|x| below half
// an ulp of 1) or inf (x = inf, where the quotient is NaN).
void LowerLog1p(TileScope& s, const Operand& x, const AccessPattern& dst) {
  const bool col = x.kind == Operand::kColumn;
  const AccessPattern u = s.Temp(col, 0), d = s.Temp(col, 1), q = s.Temp(col, 2);
  EmitTensorScalar(s, u, x.ap, AluOp::kAdd, Imm(1));
  EmitTensorScalar(s, d, u, AluOp::kSub, Imm(1));
  EmitTensorTensor(s, q, x.ap, d, AluOp::kDivide);
  EmitActivation(s, u, u, ActFunc::kLog, Imm(1), Imm(0));
  EmitTensorTensor(s, dst, u, q, AluOp::kMul);
  EmitTensorScalar(s, q, d, AluOp::kEqual, Imm(0));
  EmitCopyPredicated(s, dst, x.ap, q);
  EmitTensorScalar(s, q, d, AluOp::kEqual, Imm(INFINITY));
  EmitCopyPredicated(s, dst, x.ap, q);
}

void LowerUnary(TileScope& s, const Node& n, Operand x, const AccessPattern& dst) {
  if (x.kind == Operand::kImm) x = Operand::Column(Shaped(s, x, true, 8));
  ActFunc f;
  if (DirectActivation(n.kind, &f)) return EmitActivation(s, dst, x.ap, f, Imm(1), Imm(0));
  switch (n.kind) {
    case OpKind::kNeg: return EmitTensorScalar(s, dst, x.ap, AluOp::kMul, Imm(-1));
    case OpKind::kRelu: return EmitTensorScalar(s, dst, x.ap, AluOp::kMax, Imm(0));
    case OpKind::kAbs: {  // |x| = max(x, -x)
      const AccessPattern t = s.Temp(x.kind == Operand::kColumn, 0);
      EmitTensorScalar(s, t, x.ap, AluOp::kMul, Imm(-1));
      return EmitTensorTensor(s, dst, x.ap, t, AluOp::kMax);
    }
    case OpKind::kHardsigmoid: {  // min(max(x + 3, 0), 6) / 6, as the CPU reference
      const AccessPattern t = s.Temp(x.kind == Operand::kColumn, 0);
      EmitTensorScalar(s, t, x.ap, AluOp::kAdd, Imm(3), AluOp::kMax, Imm(0));
      return EmitTensorScalar(s, dst, t, AluOp::kMin, Imm(6), AluOp::kDivide, Imm(6));
    }
    case OpKind::kHardswish: {  // x * min(max(x + 3, 0), 6) / 6, as the CPU reference
      const AccessPattern t = s.Temp(x.kind == Operand::kColumn, 0);
      EmitTensorScalar(s, t, x.ap, AluOp::kAdd, Imm(3), AluOp::kMax, Imm(0));
      EmitTensorScalar(s, t, t, AluOp::kMin, Imm(6));
      EmitTensorTensor(s, t, x.ap, t, AluOp::kMul);
      return EmitTensorScalar(s, dst, t, AluOp::kDivide, Imm(6));
    }
    case OpKind::kLog2:
    case OpKind::kLog10: {  // log(x) / ln(b), as a multiply by the fp32 constant 1 / ln(b)
      const AccessPattern t = s.Temp(x.kind == Operand::kColumn, 0);
      EmitActivation(s, t, x.ap, ActFunc::kLog, Imm(1), Imm(0));
      const float inv_ln = n.kind == OpKind::kLog2 ? 1.4426950408889634f : 0.4342944819032518f;
      return EmitTensorScalar(s, dst, t, AluOp::kMul, Imm(inv_ln));
    }
    case OpKind::kExp2: return EmitActivation(s, dst, x.ap, ActFunc::kExp, Imm(0.6931471805599453f), Imm(0));
    case OpKind::kTan: {  // sin(x) / cos(x)
      const bool col = x.kind == Operand::kColumn;
      const AccessPattern sn = s.Temp(col, 0), cs = s.Temp(col, 1);
      EmitActivation(s, sn, x.ap, ActFunc::kSin, Imm(1), Imm(0));
      EmitActivation(s, cs, x.ap, ActFunc::kCos, Imm(1), Imm(0));
      return EmitTensorTensor(s, dst, sn, cs, AluOp::kDivide);
    }
    case OpKind::kCosh: {  // exp(x - ln 2) + exp(-x - ln 2): no overflow below cosh's own
      const bool col = x.kind == Operand::kColumn;
      const AccessPattern up = s.Temp(col, 0), down = s.Temp(col, 1);
      EmitActivation(s, up, x.ap, ActFunc::kExp, Imm(1), Imm(-0.6931471805599453f));
      EmitActivation(s, down, x.ap, ActFunc::kExp, Imm(-1), Imm(-0.6931471805599453f));
      return EmitTensorTensor(s, dst, up, down, AluOp::kAdd);
    }
    case OpKind::kLog1p: return LowerLog1p(s, x, dst);
    case OpKind::kLogSigmoid: {  // -softplus(-x)
      const AccessPattern t = s.Temp(x.kind == Operand::kColumn, 0);
      EmitActivation(s, t, x.ap, ActFunc::kSoftplus, Imm(-1), Imm(0));
      return EmitTensorScalar(s, dst, t, AluOp::kMul, Imm(-1));
    }
    case OpKind::kFrac: return EmitTensorScalar(s, dst, x.ap, AluOp::kMod, Imm(1));  // fmod(x, 1) = x - trunc(x)
    case OpKind::kLogicalNot: return EmitTensorScalar(s, dst, x.ap, AluOp::kEqual, Imm(0));
    case OpKind::kIsnan: return EmitTensorTensor(s, dst, x.ap, x.ap, AluOp::kNotEqual);  // only NaN != NaN
    case OpKind::kGeluTanh: return LowerGeluTanh(s, x, dst);
    case OpKind::kPowScalar: return LowerPow(s, x, n.scalar, dst);
    case OpKind::kCast: return EmitCopy(s, dst, x.ap);
    default: throw SimError(std::string("codegen: '") + OpKindName(n.kind) + "' is not a unary op");
  }
}

// cond ? a : b as the ISA selects: b copied into dst, then a copied over
// it where cond is non-zero (tensor_copy_predicated). Never arithmetic
// blending: c * a + (1 - c) * b is NaN where the unselected operand is
// inf or NaN.
void LowerWhere(TileScope& s, const Operand& cond, const Operand& a, const Operand& b, const AccessPattern& dst) {
  const bool column = dst.FreeElements() == 1 && cond.kind != Operand::kFull && a.kind != Operand::kFull &&
                      b.kind != Operand::kFull;
  if (cond.kind == Operand::kImm) {  // a constant condition selects one operand whole
    const Operand& pick = cond.imm != 0 ? a : b;
    return EmitCopy(s, dst, Shaped(s, pick, column, 0));
  }
  EmitCopy(s, dst, Shaped(s, b, column, 0));
  Instruction sel = MakeInstruction(EngineId::kVector, Opcode::kTensorCopyPredicated);
  sel.dst = dst;
  sel.src0 = Shaped(s, a, column, 1);
  sel.src1 = Shaped(s, cond, column, 2);
  s.sched().Add(std::move(sel));
}

}  // namespace

void EmitActivation(TileScope& s, const AccessPattern& dst, const AccessPattern& src, ActFunc func,
                    const Scalar& scale, const Scalar& bias, const AccessPattern& acc) {
  Instruction in = MakeInstruction(EngineId::kScalar, Opcode::kActivation);
  in.dst = dst;
  in.src0 = src;
  in.func = func;
  in.scalar0 = scale;
  in.scalar1 = bias;
  in.acc = acc;
  s.sched().Add(std::move(in));
}

void EmitTensorScalar(TileScope& s, const AccessPattern& dst, const AccessPattern& src, AluOp op0,
                      const Scalar& s0, AluOp op1, const Scalar& s1) {
  Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorScalar);
  in.dst = dst;
  in.src0 = src;
  in.alu0 = op0;
  in.scalar0 = s0;
  in.alu1 = op1;
  in.scalar1 = s1;
  s.sched().Add(std::move(in));
}

void EmitTensorTensor(TileScope& s, const AccessPattern& dst, const AccessPattern& a, const AccessPattern& b,
                      AluOp op) {
  Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorTensor);
  in.dst = dst;
  in.src0 = a;
  in.src1 = b;
  in.alu0 = op;
  s.sched().Add(std::move(in));
}

void EmitCopy(TileScope& s, const AccessPattern& dst, const AccessPattern& src) {
  Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorCopy);
  in.dst = dst;
  in.src0 = src;
  s.sched().Add(std::move(in));
}

bool DirectActivation(OpKind kind, ActFunc* func) {
  switch (kind) {
#define ACT(f) (*func = ActFunc::f, true)
#define VECTOR false
#define NSIM_UNARY_OP(name, Name, kind, cpu_float, cpu_int, device) \
    case OpKind::k##Name: return device;
#include "backend/unary_ops.def"
#undef ACT
#undef VECTOR
    case OpKind::kSquare: *func = ActFunc::kSquare; return true;
    case OpKind::kGelu: *func = ActFunc::kGelu; return true;
    default: return false;
  }
}

// One GpSimd iota: the tile's columns start at col0 of the innermost dim;
// every partition (row) holds the same values.
void LowerIota(TileScope& s, const Node& node, const AccessPattern& dst) {
  Instruction in = MakeInstruction(EngineId::kGpSimd, Opcode::kIota);
  in.dst = dst;
  in.base = node.scalar + node.step * static_cast<double>(s.col0());
  in.partition_step = 0;
  in.free_step = node.step;
  s.sched().Add(std::move(in));
}

// dst[p, i] = (x[p, i] op dst[p, i - 1]) + 0, from 0 (sum) or 1 (product):
// one tensor_tensor_scan over the whole row (the stage keeps rows whole),
// carried in fp32 as ATen's bf16 cumsum / cumprod accumulate in float.
void LowerRowScan(TileScope& s, OpKind kind, const Operand& x, const AccessPattern& dst) {
  if (x.kind != Operand::kFull) {  // a row of one element: 0 + x, as the scan from 0 (-0 gives +0, as the CPU)
    const AccessPattern zero = Shaped(s, Operand::Imm(0.0), true, 0);
    return EmitTensorScalar(s, dst, zero, AluOp::kAdd, x.kind == Operand::kColumn ? Column(x.ap) : Imm(x.imm));
  }
  const AccessPattern zeros = Shaped(s, Operand::Imm(0.0), false, 1);
  Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorTensorScan);
  in.dst = dst;
  in.src0 = x.ap;
  in.src1 = zeros;
  const bool sum = kind == OpKind::kRowCumsum;
  in.alu0 = sum ? AluOp::kAdd : AluOp::kMul;
  in.alu1 = AluOp::kAdd;
  in.scalar0 = Imm(sum ? 0.0 : 1.0);
  s.sched().Add(std::move(in));
}

void LowerPointwise(TileScope& s, const Node& node, const std::vector<Operand>& in, const AccessPattern& dst) {
  if (node.kind == OpKind::kIota) return LowerIota(s, node, dst);
  if (IsRowScan(node.kind)) return LowerRowScan(s, node.kind, in.at(0), dst);
  if (IsBinary(node.kind)) return LowerBinary(s, node, in.at(0), in.at(1), dst);
  if (IsUnary(node.kind)) return LowerUnary(s, node, in.at(0), dst);
  if (node.kind == OpKind::kWhere) return LowerWhere(s, in.at(0), in.at(1), in.at(2), dst);
  throw SimError(std::string("codegen: '") + OpKindName(node.kind) + "' is not pointwise");
}

void LowerRowReduce(TileScope& s, const Node& node, const Operand& in, const AccessPattern& dst) {
  // A reduction over a size-1 dim is the value itself.
  if (in.kind == Operand::kImm) return EmitCopy(s, dst, Shaped(s, in, true, 0));
  if (in.kind == Operand::kColumn) return EmitCopy(s, dst, in.ap);
  Instruction r = MakeInstruction(EngineId::kVector, Opcode::kTensorReduce);
  r.dst = dst;
  r.src0 = in.ap;
  switch (node.kind) {
#define NSIM_REDUCTION_OP(name, Name, form, overload, kind, acc, init, combine, finish, vector_op) \
    case OpKind::kRow##Name: r.reduce = ReduceOp::vector_op; break;
#include "backend/reduction_ops.def"
    default: throw SimError(std::string("codegen: '") + OpKindName(node.kind) + "' is not a row reduction");
  }
  s.sched().Add(std::move(r));
}

// Two constants: the table's CPU reference in fp32, rounded as the node is.
double FoldBinary(const Node& n, double a, double b, DType round_to) {
  using C [[maybe_unused]] = float;
  [[maybe_unused]] const double alpha = n.scalar;
  const float x = static_cast<float>(a), y = static_cast<float>(b);
  float r = 0;
  switch (n.kind) {
#define NSIM_BINARY_OP(name, Name, form, promotion, cpu, alu) \
    case OpKind::k##Name: r = cpu; break;
#include "backend/binary_ops.def"
    default: throw SimError(std::string("codegen: cannot fold '") + OpKindName(n.kind) + "'");
  }
  return RoundTo(round_to, r);
}

// The element types values take on the device: the floats, the 8- to
// 32-bit integers PyTorch has (int8, uint8, int16, int32), bool, and uint16,
// the limbs integer add reads and writes (neuron/ops/integer_ops.cc).
bool DeviceValueType(DType t) {
  return IsFloat(t) || t == DType::kI32 || t == DType::kI16 || t == DType::kI8 || t == DType::kU8 ||
         t == DType::kU16 || t == DType::kBool;
}

// A comparison or logical op of the tables: its ALU op gives 1 or 0.
bool BoolValued(OpKind k) {
  if (k == OpKind::kLogicalNot || k == OpKind::kIsnan) return true;
  if (!IsBinary(k)) return false;
  const AluOp op = AluOf(k);
  return op == AluOp::kEqual || op == AluOp::kNotEqual || op == AluOp::kGreater || op == AluOp::kGreaterEqual ||
         op == AluOp::kLess || op == AluOp::kLessEqual || op == AluOp::kLogicalAnd || op == AluOp::kLogicalOr ||
         op == AluOp::kLogicalXor;
}

// Ops whose result of Bool (0/1) operands, stored as bool (non-zero is
// true), is ATen's: add is logical or, mul logical and, where selects one.
// Eager only: compile() keeps them out of fused regions, where no store follows.
bool BoolClosed(OpKind k) {
  return k == OpKind::kWhere || k == OpKind::kAdd || k == OpKind::kMul || k == OpKind::kMaximum || k == OpKind::kMinimum;
}

void CheckSupported(const Node& node, DType input_dtype) {
  // A cast between any two of them is exact when lowered by op_lowering's
  // Cast (float -> int truncates first, -> bool compares with 0).
  const bool ok = node.kind == OpKind::kCast ? DeviceValueType(node.dtype) && DeviceValueType(input_dtype)
                                             : IsFloat(node.dtype) ||
                                                   (node.dtype == DType::kBool && (BoolValued(node.kind) || BoolClosed(node.kind)));
  if (ok) return;
  throw SimError(std::string("codegen: '") + OpKindName(node.kind) + "' does not support dtype " +
                 DTypeName(node.kind == OpKind::kCast ? input_dtype : node.dtype) +
                 (node.kind == OpKind::kCast ? std::string(" to ") + DTypeName(node.dtype) : std::string()) +
                 " on the device");
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
