// Neuron kernels for mm and bmm: one generated TensorE kernel each (the
// ops' shared lowering, op_lowering.h) (K tiled
// with PSUM accumulation, operands read with the layout TensorE needs; see
// codegen/matmul_operands.h). aten::matmul is the composite over these.
#include "backend/dispatcher.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"
#include "backend/neuron/op_lowering.h"

namespace nsim {
namespace neuron {
namespace {

using at::Tensor;

Tensor Product(const std::string& op, const at::TensorMeta& m, const Tensor& a, const Tensor& b) {
  RequireFloat(op, m.dtype);
  Tensor out = at::MakeOutput(m);
  if (a.size(-1) == 0) {  // a sum of no products: zeros (a device fill), as the CPU gives
    if (out.numel() > 0) out.fill_(0);
    return out;
  }
  LaunchGraph(op, {{{"a", a}, {"b", b}}, {{"out", out}}}, [&] {
    codegen::Graph g;
    EagerOperands args(&g, {g.Input("a", DescOf(a)), g.Input("b", DescOf(b))}, {}, at::ToSimDType(m.dtype),
                       out.sizes());
    g.Output(EmitOp(g, op, args), "out", DescOf(out));
    return g;
  });
  return out;
}

Tensor mm(const Tensor& a, const Tensor& b) { return Product("aten::mm", at::MmMeta(a, b), a, b); }
Tensor bmm(const Tensor& a, const Tensor& b) { return Product("aten::bmm", at::BmmMeta(a, b), a, b); }

}  // namespace

NSIM_LIBRARY_IMPL(aten, Neuron, m) {
  m.impl("mm", &mm);
  m.impl("bmm", &bmm);
}

}  // namespace neuron
}  // namespace nsim
