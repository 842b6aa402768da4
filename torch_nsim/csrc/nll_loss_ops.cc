// nll_loss (forward and backward, and its 2-d form) composed from the
// simulator's device kernels: each row's target class picked by a one-hot
// mask (the GpSimd iota of the class numbers, int64 eq against the targets),
// a where() select and a row sum (one nonzero term, so exact). The weights
// are selected the same way; ignore_index rows weigh 0. The products and the
// reductions run in fp32 on the device and are rounded once to the input
// dtype. The CPU's kernel sums bf16 losses and weights in bf16, rounding each
// step of its cascade, so a bf16 mean or sum here is the closer one to the
// exact value (test_sort_loss checks that); fp32 agrees within OpInfo's
// tolerance, 'none' (loss and gradient) bit for bit.
// Out-of-range targets are refused as the CPU does (one device check, read
// on the host).
#include <optional>
#include <tuple>

#include <ATen/ATen.h>
#include <ATen/core/Reduction.h>
#include <torch/library.h>

#include "torch_nsim/csrc/out_variant.h"
#include "torch_nsim/csrc/wrapped_number.h"

namespace torch_nsim {
namespace {

using at::Tensor;

struct Picked {
  Tensor onehot;  // bool [N, C]: the target class of each row
  Tensor w;       // fp32 [N]: the row's class weight, 0 for ignored rows
  Tensor valid;   // bool [N]: the row's target is not ignore_index
};

// x [N, C] (or [C]), target [N] (or []): the one-hot mask and row weights.
Picked Pick(const Tensor& x, const Tensor& target, const std::optional<Tensor>& weight, int64_t ignore_index,
            const char* op) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(x.scalar_type()), op, " on neuron: floating inputs only, not ",
                              x.scalar_type());
  TORCH_CHECK(target.scalar_type() == c10::kLong, op, ": expected target of dtype Long, got ", target.scalar_type());
  TORCH_CHECK(x.dim() >= 1 && x.dim() <= 2, op, ": input tensor should be 1D or 2D");
  TORCH_CHECK(target.dim() <= 1, op, ": 0D or 1D target tensor expected, multi-target not supported");
  const int64_t n = x.dim() == 1 ? 1 : x.size(0), c = x.size(-1);
  TORCH_CHECK(target.numel() == n, op, ": size mismatch (got input: ", x.sizes(), ", target: ", target.sizes(), ")");
  const bool has_w = weight && weight->defined();
  TORCH_CHECK(!has_w || weight->numel() == c, op, ": weight tensor should be defined either for all ", c,
              " classes or no classes but got weight tensor of shape: ", weight->sizes());
  const Tensor t = target.reshape({n, 1});
  const Tensor valid = at::ne(t, ignore_index);
  const Tensor classes = at::arange(c, t.options()).reshape({1, c});
  const Tensor onehot = at::logical_and(at::eq(t, classes), valid);
  // A kept target outside 0..C-1 matches no class (int64 eq only: the
  // device has no int64 order compare).
  if (n > 0) {
    const Tensor outside = at::logical_and(at::logical_not(at::any(onehot, 1, true)), valid);
    TORCH_CHECK(!at::any(outside).item<bool>(), op, ": Target is out of bounds (classes 0..", c - 1, ")");
  }
  const Tensor w_full = has_w ? weight->to(c10::kFloat).reshape({1, c}) : at::ones({1, c}, x.options().dtype(c10::kFloat));
  const Tensor w = at::sum(at::where(onehot, w_full, Wrapped(0.0)), {1});
  return {onehot, w, valid.reshape({n})};
}

// The row's picked value of x, fp32 [N].
Tensor PickedValue(const Picked& p, const Tensor& x2) {
  return at::sum(at::where(p.onehot, x2.to(c10::kFloat), Wrapped(0.0)), {1});
}

std::tuple<Tensor, Tensor> NllLossForward(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                          int64_t reduction, int64_t ignore_index) {
  const char* op = "aten::nll_loss_forward";
  const Picked p = Pick(self, target, weight, ignore_index, op);
  const Tensor x2 = self.dim() == 1 ? self.reshape({1, -1}) : self;
  const c10::ScalarType dt = self.scalar_type();
  // -x[t] w[t], 0 for ignored rows (ATen writes 0 there, not -0).
  const Tensor l = at::where(p.valid, at::neg(PickedValue(p, x2)).mul(p.w), Wrapped(0.0));
  if (reduction == at::Reduction::None && self.dim() == 2) {
    return {l.to(dt), at::zeros({}, self.options())};
  }
  TORCH_CHECK(reduction >= 0 && reduction <= 2, op, ": ", reduction, " is not a valid value for reduction");
  const Tensor tw = at::sum(p.w);
  Tensor out = at::sum(l);
  if (reduction == at::Reduction::Mean) out = at::div(out, tw);
  return {out.to(dt), tw.to(dt)};
}

Tensor NllLossBackward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                       const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                       const Tensor& total_weight) {
  const char* op = "aten::nll_loss_backward";
  const Picked p = Pick(self, target, weight, ignore_index, op);
  const c10::ScalarType dt = self.scalar_type();
  const int64_t n = p.w.size(0);
  // ATen: grad = -(mean ? g / total_weight : g), then w[t] * grad, each in
  // the input dtype (rounded per step as the CPU's scalar_t arithmetic).
  Tensor g = grad_output.to(c10::kFloat).reshape({-1});
  if (reduction == at::Reduction::None && self.dim() == 2) {
    TORCH_CHECK(g.numel() == n, op, ": grad_output should have ", n, " elements, got ", g.numel());
  } else {
    TORCH_CHECK(g.numel() == 1, op, ": grad_output should be a scalar, got ", grad_output.sizes());
    if (reduction == at::Reduction::Mean) g = at::div(g, total_weight.to(c10::kFloat).reshape({1})).to(dt).to(c10::kFloat);
    g = g.expand({n});
  }
  Tensor gr = at::neg(g);
  if (weight && weight->defined()) gr = at::mul(gr, p.w).to(dt).to(c10::kFloat);
  const Tensor gi = at::where(p.onehot, gr.reshape({n, 1}), Wrapped(0.0)).to(dt);
  return self.dim() == 1 ? gi.reshape(self.sizes()) : gi;
}

// nll_loss2d: input [N, C, H, W], target [N, H, W]; the class dim moved last
// and the pixels flattened into rows of the 1-d loss.
Tensor ToRows(const Tensor& self) { return self.movedim(1, -1).reshape({-1, self.size(1)}); }

void Check2d(const Tensor& self, const Tensor& target, const char* op) {
  TORCH_CHECK(self.dim() == 4, op, ": only batches of spatial inputs supported (4D tensors), but got input of size: ",
              self.sizes());
  TORCH_CHECK(target.dim() == 3, op, ": only batches of spatial targets supported (3D tensors) but got targets of size: ",
              target.sizes());
  TORCH_CHECK(self.size(0) == target.size(0) && self.size(2) == target.size(1) && self.size(3) == target.size(2), op,
              ": input and target batch or spatial sizes don't match: target ", target.sizes(), ", input ", self.sizes());
}

std::tuple<Tensor, Tensor> NllLoss2dForward(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction,
                                            int64_t ignore_index) {
  Check2d(self, target, "aten::nll_loss2d_forward");
  auto [out, tw] = NllLossForward(ToRows(self), target.reshape({-1}), weight, reduction, ignore_index);
  if (reduction == at::Reduction::None) out = out.reshape(target.sizes());
  return {out, tw};
}

Tensor NllLoss2dBackward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight) {
  Check2d(self, target, "aten::nll_loss2d_backward");
  const Tensor g = reduction == at::Reduction::None ? grad_output.reshape({-1}) : grad_output;
  const Tensor rows =
      NllLossBackward(g, ToRows(self), target.reshape({-1}), weight, reduction, ignore_index, total_weight);
  const Tensor r = rows.reshape({self.size(0), self.size(2), self.size(3), self.size(1)}).movedim(-1, 1);
  return r.contiguous();
}

std::tuple<Tensor&, Tensor&> NllLossForwardOut(const Tensor& self, const Tensor& target,
                                               const std::optional<Tensor>& weight, int64_t reduction,
                                               int64_t ignore_index, Tensor& output, Tensor& total_weight) {
  return CopyPair(NllLossForward(self, target, weight, reduction, ignore_index), output, total_weight);
}
std::tuple<Tensor&, Tensor&> NllLoss2dForwardOut(const Tensor& self, const Tensor& target,
                                                 const std::optional<Tensor>& weight, int64_t reduction,
                                                 int64_t ignore_index, Tensor& output, Tensor& total_weight) {
  return CopyPair(NllLoss2dForward(self, target, weight, reduction, ignore_index), output, total_weight);
}
Tensor& CopyInto(const Tensor& r, Tensor& out) {
  if (out.sizes() != r.sizes()) out.resize_(r.sizes());
  return out.copy_(r);
}
Tensor& NllLossBackwardOut(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                           const Tensor& total_weight, Tensor& grad_input) {
  return CopyInto(NllLossBackward(grad_output, self, target, weight, reduction, ignore_index, total_weight),
                  grad_input);
}
Tensor& NllLoss2dBackwardOut(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                             const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                             const Tensor& total_weight, Tensor& grad_input) {
  return CopyInto(NllLoss2dBackward(grad_output, self, target, weight, reduction, ignore_index, total_weight),
                  grad_input);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("nll_loss_forward", &NllLossForward);
  m.impl("nll_loss_forward.output", &NllLossForwardOut);
  m.impl("nll_loss_backward", &NllLossBackward);
  m.impl("nll_loss_backward.grad_input", &NllLossBackwardOut);
  m.impl("nll_loss2d_forward", &NllLoss2dForward);
  m.impl("nll_loss2d_forward.output", &NllLoss2dForwardOut);
  m.impl("nll_loss2d_backward", &NllLoss2dBackward);
  m.impl("nll_loss2d_backward.grad_input", &NllLoss2dBackwardOut);
}

}  // namespace torch_nsim
