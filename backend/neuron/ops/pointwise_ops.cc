// Neuron kernels for the pointwise ops: each is one generated kernel whose
// node is the op's shared lowering (op_lowering.h), over the op's operands as they are — broadcast, strided
// views and device scalars (a lifted Python number is a 0-dim device tensor,
// read by a broadcasting DMA like any input). Shapes, promotion and errors
// come from the shape functions shared with the CPU and Meta kernels.
#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"
#include "backend/neuron/op_lowering.h"
#include "backend/neuron/ops/integer_ops.h"
#include "backend/shape.h"
#include "backend/type_promotion.h"

namespace nsim {
namespace neuron {
namespace {

using at::Tensor;
using at::TensorMeta;
using codegen::Graph;
using codegen::ValueId;

// The op over its leading tensor arguments `ins`: one kernel whose graph is
// the op's shared lowering; `constants` are its other schema arguments.
Tensor Pointwise(const std::string& op, const TensorMeta& m, const std::vector<Tensor>& ins,
                 std::vector<at::IValue> constants) {
  // Bool operands are read as 0 and 1; the result is float (or Bool from
  // Binary's comparisons, whose compute type Binary checks, and where's).
  if (m.dtype != at::kBool) RequireFloat(op, m.dtype);
  Tensor out = at::MakeOutput(m);
  GraphOperands operands{{}, {{"out", out}}};
  const char* names[] = {"a", "b", "c"};
  for (size_t i = 0; i < ins.size(); ++i) operands.inputs.push_back({names[i], ins[i]});
  LaunchGraph(op, operands, [&] {
    Graph g;
    std::vector<ValueId> values;
    for (size_t i = 0; i < ins.size(); ++i) values.push_back(g.Input(names[i], DescOf(ins[i])));
    EagerOperands args(&g, values, std::move(constants), at::ToSimDType(m.dtype), out.sizes());
    g.Output(EmitOp(g, op, args), "out", DescOf(out));
    return g;
  });
  return out;
}

Tensor Pointwise(const std::string& op, const TensorMeta& m, const Tensor& a, const Tensor& b,
                 std::vector<at::IValue> constants) {
  return Pointwise(op, m, b.defined() ? std::vector<Tensor>{a, b} : std::vector<Tensor>{a}, std::move(constants));
}

// An operand of a comparison in its compute type, as ATen casts it: a
// float32 number compared with a bfloat16 tensor is first rounded to
// bfloat16 (a device cast kernel). Wider types hold the narrower exactly.
Tensor InComputeType(const Tensor& t, at::ScalarType compute) {
  return t.dtype() == at::kFloat && at::IsFloatingType(compute) && compute != at::kFloat ? t.to(compute) : t;
}

Tensor Binary(const char* op, const Tensor& a, const Tensor& b, at::Promotion p, at::IValue alpha = at::IValue()) {
  const at::TensorMeta m = at::BinaryMeta(a, b, p);
  if (p == at::Promotion::kCompare) {
    // The ALU compares in fp32: exact for floating operands, not for int32
    // beyond 2^24: integer eq/ne compare limbs; the orderings are refused.
    const at::ScalarType compute = at::BinaryComputeType(a, b, p);
    const std::string name = op;
    if (at::IsIntegralType(compute, false) && (name == "aten::eq.Tensor" || name == "aten::ne.Tensor")) {
      return IntegerEqual(op, m, compute, a, b, name == "aten::eq.Tensor");  // exact limb compare
    }
    RequireFloat(op, compute);
    return Pointwise(op, m, InComputeType(a, compute), InComputeType(b, compute), {});
  }
  // Integer add/sub: exact limb arithmetic (the engines' fp32 is not).
  const std::string name = op;
  if (at::IsIntegralType(m.dtype, false) && (name == "aten::add.Tensor" || name == "aten::sub.Tensor")) {
    const double a1 = alpha.isNone() ? 1.0 : alpha.toScalar().toDouble();
    return IntegerAdd(op, m, a, b, at::Scalar(name == "aten::sub.Tensor" ? -a1 : a1));
  }
  // Arithmetic ops compute in the result type; logical ops' truth (non-zero)
  // is exact in fp32 for every dtype the device holds.
  return Pointwise(op, m, a, b, {at::IValue(), at::IValue(), alpha});
}

// Each op of backend/binary_ops.def: its .Tensor overload (or its only one).
#define NSIM_BINARY_ALPHA(name, P)                                                    \
  Tensor name(const Tensor& a, const Tensor& b, const at::Scalar& alpha) {          \
    return Binary("aten::" #name ".Tensor", a, b, at::Promotion::P, alpha);          \
  }
#define NSIM_BINARY_SCALAR(name, P)                                                   \
  Tensor name(const Tensor& a, const Tensor& b) {                                   \
    return Binary("aten::" #name ".Tensor", a, b, at::Promotion::P);                 \
  }
#define NSIM_BINARY_PLAIN(name, P) \
  Tensor name(const Tensor& a, const Tensor& b) { return Binary("aten::" #name, a, b, at::Promotion::P); }
// pow: ATen's iterator casts both operands to the result type before
// powf (a float32 number with a bfloat16 tensor is rounded to bfloat16).
#define NSIM_BINARY_EXPONENT(name, P)                                                                  \
  Tensor name##_tensor(const Tensor& a, const Tensor& b) {                                            \
    const at::ScalarType t = at::BinaryMeta(a, b, at::Promotion::P).dtype;                           \
    return Binary("aten::" #name ".Tensor_Tensor", InComputeType(a, t), InComputeType(b, t), at::Promotion::P); \
  }
#define NSIM_BINARY_OP(name, Name, form, promotion, ...) NSIM_BINARY_##form(name, promotion)
#include "backend/binary_ops.def"
#undef NSIM_BINARY_ALPHA
#undef NSIM_BINARY_SCALAR
#undef NSIM_BINARY_PLAIN
#undef NSIM_BINARY_EXPONENT

template <const at::UnarySpec& kSpec>
Tensor unary(const Tensor& self) {
  return Pointwise(std::string("aten::") + kSpec.name, at::UnaryMeta(kSpec, self), self, Tensor(), {});
}

Tensor gelu(const Tensor& self, const std::string& approximate) {
  return Pointwise("aten::gelu", at::GeluMeta(self, approximate), self, Tensor(),
                   {at::IValue(), at::IValue(approximate)});
}

Tensor pow(const Tensor& self, const at::Scalar& exponent) {
  return Pointwise("aten::pow.Tensor_Scalar", at::PowMeta(self, exponent), self, Tensor(),
                   {at::IValue(), at::IValue(exponent)});
}

// where.self: the values' dtypes may differ from the result's (the lowering
// converts them); the result may be Bool (0/1 copied exactly).
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  const TensorMeta m = at::WhereMeta(condition, self, other);
  if (m.dtype == at::kBool) {
    for (const Tensor* t : {&self, &other}) {
      if (t->dtype() != at::kBool) RequireFloat("aten::where.self", t->dtype());
    }
  }
  return Pointwise("aten::where.self", m, {condition, self, other}, {});
}

// ReLU's backward as one kernel (the lowering's le and where) rather than
// its composite's two.
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const at::Scalar& threshold) {
  const TensorMeta m{at::BroadcastShapes(grad_output.sizes(), self.sizes()), at::ResultType(grad_output, self),
                     at::OutputDevice({&grad_output, &self})};
  RequireFloat("aten::threshold_backward", self.dtype());
  return Pointwise("aten::threshold_backward", m, {grad_output, self}, {at::IValue(), at::IValue(), at::IValue(threshold)});
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, Neuron, m) {
#include "backend/binary_ops_impl.inc"
  m.impl("pow.Tensor_Scalar", &pow);
#define NSIM_UNARY_OP(name, Name, ...) m.impl(#name, &unary<at::unary::k##Name>);
#include "backend/unary_ops.def"
  m.impl("gelu", &gelu);
  m.impl("where.self", &where);
  m.impl("threshold_backward", &threshold_backward);
}

}  // namespace neuron
}  // namespace nsim
