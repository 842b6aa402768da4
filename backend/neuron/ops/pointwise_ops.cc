// Neuron kernels for the pointwise ops: each is one generated kernel
// (codegen/graph.h) over the op's operands as they are — broadcast, strided
// views and device scalars (a lifted Python number is a 0-dim device tensor,
// read by a broadcasting DMA like any input). Shapes, promotion and errors
// come from the shape functions shared with the CPU and Meta kernels.
#include "backend/binary_ops_registration.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"

namespace nsim {
namespace neuron {
namespace {

using at::Tensor;
using at::TensorMeta;
using codegen::Graph;
using codegen::OpKind;
using codegen::ValueId;

Tensor Binary(const char* op, OpKind kind, const Tensor& a, const Tensor& b, at::Promotion p, double alpha = 1.0) {
  const TensorMeta m = at::BinaryMeta(a, b, p);
  RequireFloat(op, m.dtype);
  RequireDeviceType(op, a.dtype());
  RequireDeviceType(op, b.dtype());
  Tensor out = at::MakeOutput(m);
  LaunchGraph(op, {{{"a", a}, {"b", b}}, {{"out", out}}}, [&] {
    Graph g;
    const ValueId va = g.Input("a", DescOf(a)), vb = g.Input("b", DescOf(b));
    g.Output(g.Binary(kind, va, vb, at::ToSimDType(m.dtype), alpha), "out", DescOf(out));
    return g;
  });
  return out;
}

Tensor add(const Tensor& a, const Tensor& b, const at::Scalar& alpha) {
  return Binary("aten::add.Tensor", OpKind::kAdd, a, b, at::Promotion::kResultType, alpha.toDouble());
}
Tensor sub(const Tensor& a, const Tensor& b, const at::Scalar& alpha) {
  at::CheckSubOperands(a, b);
  return Binary("aten::sub.Tensor", OpKind::kSub, a, b, at::Promotion::kResultType, alpha.toDouble());
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return Binary("aten::mul.Tensor", OpKind::kMul, a, b, at::Promotion::kResultType);
}
Tensor div(const Tensor& a, const Tensor& b) {
  return Binary("aten::div.Tensor", OpKind::kDiv, a, b, at::Promotion::kIntToFloat);
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  return Binary("aten::maximum", OpKind::kMaximum, a, b, at::Promotion::kResultType);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return Binary("aten::minimum", OpKind::kMinimum, a, b, at::Promotion::kResultType);
}

// One unary node; `exponent` only for pow.
Tensor Unary(const std::string& op, OpKind kind, const TensorMeta& m, const Tensor& self, double exponent = 0) {
  RequireFloat(op, m.dtype);
  RequireDeviceType(op, self.dtype());
  Tensor out = at::MakeOutput(m);
  LaunchGraph(op, {{{"x", self}}, {{"out", out}}}, [&] {
    Graph g;
    const ValueId x = g.Input("x", DescOf(self));
    const DType t = at::ToSimDType(m.dtype);
    g.Output(kind == OpKind::kPowScalar ? g.Pow(x, exponent, t) : g.Unary(kind, x, t), "out", DescOf(out));
    return g;
  });
  return out;
}

template <const at::UnarySpec& kSpec, OpKind kKind>
Tensor unary(const Tensor& self) {
  return Unary(std::string("aten::") + kSpec.name, kKind, at::UnaryMeta(kSpec, self), self);
}

Tensor gelu(const Tensor& self, const std::string& approximate) {
  if (approximate != "none" && approximate != "tanh") throw SimError("approximate argument must be either none or tanh.");
  const OpKind kind = approximate == "tanh" ? OpKind::kGeluTanh : OpKind::kGelu;
  return Unary("aten::gelu", kind, at::UnaryMeta(at::unary::kGelu, self), self);
}

Tensor pow(const Tensor& self, const at::Scalar& exponent) {
  return Unary("aten::pow.Tensor_Scalar", OpKind::kPowScalar, at::PowMeta(self, exponent), self,
               exponent.toDouble());
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, Neuron, m) {
  at::RegisterBinaryOps(m, &add, &sub, &mul, &div, &maximum, &minimum, &pow);
  m.impl("neg", &unary<at::unary::kNeg, OpKind::kNeg>);
  m.impl("abs", &unary<at::unary::kAbs, OpKind::kAbs>);
  m.impl("relu", &unary<at::unary::kRelu, OpKind::kRelu>);
  m.impl("exp", &unary<at::unary::kExp, OpKind::kExp>);
  m.impl("log", &unary<at::unary::kLog, OpKind::kLog>);
  m.impl("sqrt", &unary<at::unary::kSqrt, OpKind::kSqrt>);
  m.impl("rsqrt", &unary<at::unary::kRsqrt, OpKind::kRsqrt>);
  m.impl("reciprocal", &unary<at::unary::kReciprocal, OpKind::kReciprocal>);
  m.impl("tanh", &unary<at::unary::kTanh, OpKind::kTanh>);
  m.impl("sigmoid", &unary<at::unary::kSigmoid, OpKind::kSigmoid>);
  m.impl("silu", &unary<at::unary::kSilu, OpKind::kSilu>);
  m.impl("gelu", &gelu);
}

}  // namespace neuron
}  // namespace nsim
