// add / sub and eq / ne of integer tensors on the Neuron device, exact for
// every value.
// The engines compute in fp32 (sim/kernel/alu_act_tables.h), which holds
// integers exactly only up to 2^24, and have no int64 type at all: so each
// operand is read as 16-bit limbs (8-bit for int8/uint8), little-endian
// views of its own memory, and the sum is carried limb by limb, as
// multi-precision arithmetic does. Every intermediate is below 2^18, exact
// in fp32; the top limb's carry is dropped, so the result wraps around as
// two's-complement arithmetic does on the CPU. Per limb: 6 VectorE
// instructions, timed like any other (an int64 add: 4 limbs). eq / ne
// compare limb by limb (one instruction per limb, one to combine each).
#include "backend/neuron/ops/integer_ops.h"

#include <algorithm>
#include <string>
#include <vector>

#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/codegen/tiling.h"
#include "backend/neuron/kernel_launch.h"
#include "sim/base/error.h"

namespace nsim {
namespace neuron {
namespace {

using at::Tensor;
using codegen::Graph;
using codegen::OpKind;
using codegen::ValueId;

struct Limbs {
  at::ScalarType dtype;  // Short (16-bit limbs, read as uint16) or Byte
  DType sim;
  int count;
  double base;  // 2^bits
};

Limbs LimbsOf(at::ScalarType result) {
  const int64_t size = at::ElementSize(result);
  if (size == 1) return {at::kByte, DType::kU8, 1, 256.0};
  return {at::kShort, DType::kU16, static_cast<int>(size / 2), 65536.0};
}

codegen::TensorDesc LimbDesc(const Tensor& view, DType sim, const Tensor& out) {
  codegen::TensorDesc d = DescOf(view);
  d.dtype = sim;  // unsigned limbs: the views are made as the same-width signed type
  const std::vector<int64_t> sizes(out.sizes().begin(), out.sizes().end());
  d.strides = codegen::BroadcastStrides(d.sizes, d.strides, sizes);
  d.sizes = sizes;
  return d;
}

// Limb i of operand `t` (already of the result's width or narrower): its own
// limbs, then its sign extension (base - 1 when its top limb is negative).
class Operand {
 public:
  Operand(const std::string& name, const Tensor& t, const Limbs& l) : name_(name), t_(t), l_(l) {
    // A wider operand (an int64 number added to int32) contributes its low limbs.
    own_ = std::min(l.count, static_cast<int>(t.element_size() / at::ElementSize(l.dtype)));
  }
  void Bind(GraphOperands& ops) const {
    for (int i = 0; i < own_; ++i) ops.inputs.push_back({Name(i), ReinterpretAs(t_, l_.dtype, i)});
  }
  std::vector<ValueId> Read(Graph& g, const Tensor& out) const {
    std::vector<ValueId> v;
    for (int i = 0; i < own_; ++i) v.push_back(g.Input(Name(i), LimbDesc(ReinterpretAs(t_, l_.dtype, i), l_.sim, out)));
    if (own_ < l_.count) {
      const ValueId negative = g.Binary(OpKind::kGe, v.back(), g.Constant(l_.base / 2), DType::kF32);
      const ValueId ext = g.Binary(OpKind::kMul, negative, g.Constant(l_.base - 1), DType::kF32);
      while (static_cast<int>(v.size()) < l_.count) v.push_back(ext);
    }
    return v;
  }

 private:
  std::string Name(int i) const { return name_ + std::to_string(i); }
  std::string name_;
  Tensor t_;
  Limbs l_;
  int own_ = 0;
};

// Bool, and 8-bit operands of a wider type, first become `dtype` (an exact
// device cast): limbs are views of the operand's memory.
void Normalise(at::ScalarType dtype, const Limbs& l, Tensor& a, Tensor& b) {
  for (Tensor* t : {&a, &b}) {
    if (t->dtype() == at::kBool || t->element_size() < at::ElementSize(l.dtype) ||
        (t->dtype() == at::kByte && dtype != at::kByte)) {
      *t = t->to(dtype);
    }
  }
}

}  // namespace

Tensor IntegerAdd(const std::string& op, const at::TensorMeta& m, Tensor a, Tensor b, const at::Scalar& alpha) {
  const double sign = alpha.toDouble();
  if (sign != 1.0 && sign != -1.0) {
    throw SimError(op + " of " + at::TorchDtypeName(m.dtype) + " tensors on neuron: alpha must be 1 or -1, not " +
                   std::to_string(alpha.toDouble()) + " (the engines add integers limb by limb, without products)");
  }
  const Limbs l = LimbsOf(m.dtype);
  Normalise(m.dtype, l, a, b);
  Tensor out = at::MakeOutput(m);
  const Operand x("a", a, l), y("b", b, l);
  GraphOperands ops;
  x.Bind(ops);
  y.Bind(ops);
  for (int i = 0; i < l.count; ++i) ops.outputs.push_back({"out" + std::to_string(i), ReinterpretAs(out, l.dtype, i)});
  LaunchGraph(op, ops, [&] {
    Graph g;
    const std::vector<ValueId> xs = x.Read(g, out), ys = y.Read(g, out);
    ValueId carry = -1;  // -1, 0 or +1 into the next limb
    for (int i = 0; i < l.count; ++i) {
      ValueId s = g.Binary(OpKind::kAdd, xs[i], ys[i], DType::kF32, sign);  // in (-base, 2 base)
      if (carry >= 0) s = g.Binary(OpKind::kAdd, s, carry, DType::kF32);
      const ValueId over = g.Binary(OpKind::kGe, s, g.Constant(l.base), DType::kF32);
      const ValueId under = g.Binary(OpKind::kLt, s, g.Constant(0.0), DType::kF32);
      carry = g.Binary(OpKind::kSub, over, under, DType::kF32);
      const ValueId limb = g.Binary(OpKind::kSub, s, carry, DType::kF32, l.base);
      const Tensor view = ReinterpretAs(out, l.dtype, i);
      codegen::TensorDesc d = DescOf(view);
      d.dtype = l.sim;
      g.Output(g.Cast(limb, l.sim), "out" + std::to_string(i), d);
    }
    return g;
  });
  return out;
}

Tensor IntegerEqual(const std::string& op, const at::TensorMeta& m, at::ScalarType compute, Tensor a, Tensor b,
                    bool equal) {
  const Limbs l = LimbsOf(compute);
  Normalise(compute, l, a, b);
  Tensor out = at::MakeOutput(m);
  const Operand x("a", a, l), y("b", b, l);
  GraphOperands ops;
  x.Bind(ops);
  y.Bind(ops);
  ops.outputs.push_back({"out", out});
  LaunchGraph(op, ops, [&] {
    Graph g;
    const std::vector<ValueId> xs = x.Read(g, out), ys = y.Read(g, out);
    ValueId all = g.Binary(OpKind::kEq, xs[0], ys[0], DType::kF32);
    for (int i = 1; i < l.count; ++i) {
      all = g.Binary(OpKind::kLogicalAnd, all, g.Binary(OpKind::kEq, xs[i], ys[i], DType::kF32), DType::kF32);
    }
    g.Output(g.Binary(equal ? OpKind::kNe : OpKind::kEq, all, g.Constant(0.0), DType::kBool), "out", DescOf(out));
    return g;
  });
  return out;
}

}  // namespace neuron
}  // namespace nsim
