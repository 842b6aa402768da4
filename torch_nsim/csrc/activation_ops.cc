// Activation kernels and their backward ops torch_nsim composes from the
// simulator's device kernels (registered for PrivateUse1; the simulator has
// no op of their own): _prelu_kernel (+ backward) and log_sigmoid_backward.
// Each step is a device kernel, timed like any other; values follow ATen's
// CPU kernels (a bf16 product is computed in fp32 and rounded once there too).
#include <tuple>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "torch_nsim/csrc/out_variant.h"
#include "torch_nsim/csrc/wrapped_number.h"

namespace torch_nsim {
namespace {

using at::Tensor;

void CheckFloating(const Tensor& t, const char* op) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(t.scalar_type()), op, " on neuron: floating dtypes only, not ",
                              t.scalar_type());
}

// prelu: x where x > 0, else weight * x (NaN: weight * NaN, as the CPU's).
Tensor PreluKernel(const Tensor& self, const Tensor& weight) {
  CheckFloating(self, "aten::_prelu_kernel");
  return at::where(at::gt(self, Wrapped(0.0)), self, at::mul(weight, self));
}

// Its backward: grad_input = x > 0 ? g : w g; grad_weight = x > 0 ? 0 : x g,
// at the broadcast shape (autograd sums it to the weight's shape).
std::tuple<Tensor, Tensor> PreluKernelBackward(const Tensor& grad, const Tensor& self, const Tensor& weight) {
  CheckFloating(self, "aten::_prelu_kernel_backward");
  const Tensor pos = at::gt(self, Wrapped(0.0));
  Tensor gi = at::where(pos, grad, at::mul(weight, grad));
  Tensor gw = at::masked_fill(at::mul(self, grad), pos, 0.0);
  return {gi.scalar_type() == self.scalar_type() ? gi : gi.to(self.scalar_type()),
          gw.scalar_type() == weight.scalar_type() ? gw : gw.to(weight.scalar_type())};
}

// log_sigmoid_backward: g * sigmoid(-x), ATen's way in fp32: z = exp(-|x|),
// z / (1 + z) for x >= 0, 1 - z / (1 + z) below 0 (no overflow either side).
// The CPU's buffer argument is not read (empty on the device).
Tensor LogSigmoidBackward(const Tensor& grad, const Tensor& self, const Tensor& /*buffer*/) {
  CheckFloating(self, "aten::log_sigmoid_backward");
  const Tensor x = self.to(c10::kFloat), g = grad.to(c10::kFloat);
  const Tensor z = at::exp(at::neg(at::abs(x)));
  const Tensor frac = at::div(z, at::add(z, Wrapped(1.0)));
  const Tensor neg = at::lt(x, Wrapped(0.0));
  const Tensor d = at::where(neg, at::rsub(frac, 1.0), frac);
  const Tensor r = at::mul(g, d);
  const c10::ScalarType t = at::result_type(grad, self);
  return r.scalar_type() == t ? r : r.to(t);
}
Tensor& LogSigmoidBackwardOut(const Tensor& grad, const Tensor& self, const Tensor& buffer, Tensor& out) {
  return CopyToOut(LogSigmoidBackward(grad, self, buffer), out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_prelu_kernel", &PreluKernel);
  m.impl("_prelu_kernel_backward", &PreluKernelBackward);
  m.impl("log_sigmoid_backward", &LogSigmoidBackward);
  m.impl("log_sigmoid_backward.grad_input", &LogSigmoidBackwardOut);
}

}  // namespace torch_nsim
