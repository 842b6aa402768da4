// Math ops defined in terms of other ops, for every backend
// (CompositeExplicit): a device backend gets them by implementing the ops
// they call. As in ATen, the .Scalar overloads wrap the number into a 0-dim
// CPU tensor and call the .Tensor overload; on the Neuron key that tensor is
// then lifted to the device (See Note [Scalar lifting] in dispatcher.cc).
#include "backend/composite/view_ops.h"
#include "backend/library.h"
#include "backend/ops.h"
#include "backend/type_promotion.h"

namespace nsim {
namespace at {
namespace {

// The .Scalar overload of each op of backend/binary_ops.def that has one.
#define NSIM_BINARY_ALPHA(name)                                                  \
  Tensor name##_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) { \
    return name(self, WrappedScalarTensor(other), alpha);                       \
  }
#define NSIM_BINARY_SCALAR(name)                                \
  Tensor name##_scalar(const Tensor& self, const Scalar& other) { \
    return name(self, WrappedScalarTensor(other));             \
  }
#define NSIM_BINARY_PLAIN(name)
#define NSIM_BINARY_EXPONENT(name)                                     \
  Tensor name##_scalar(const Scalar& self, const Tensor& exponent) {  \
    return name(WrappedScalarTensor(self), exponent);                \
  }
#define NSIM_BINARY_OP(name, Name, form, ...) NSIM_BINARY_##form(name)
#include "backend/binary_ops.def"
#undef NSIM_BINARY_ALPHA
#undef NSIM_BINARY_SCALAR
#undef NSIM_BINARY_PLAIN
#undef NSIM_BINARY_EXPONENT
Tensor rsub_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return sub(WrappedScalarTensor(other), self, alpha);
}
Tensor square_kernel(const Tensor& self) { return pow(self, 2); }

// The every-dim overload of each DTYPE-form op of backend/reduction_ops.def.
#define NSIM_REDUCTION_DTYPE(name) \
  Tensor name##_all(const Tensor& self, std::optional<ScalarType> dtype) { return name(self, IntList{}, false, dtype); }
#define NSIM_REDUCTION_PLAIN(name)
#define NSIM_REDUCTION_OP(name, Name, form, ...) NSIM_REDUCTION_##form(name)
#include "backend/reduction_ops.def"
#undef NSIM_REDUCTION_DTYPE
#undef NSIM_REDUCTION_PLAIN

Tensor layer_norm_kernel(const Tensor& input, const IntList& normalized_shape,
                         const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                         double eps, bool /*cudnn_enable*/) {
  return std::get<0>(native_layer_norm(input, normalized_shape, weight, bias, eps));
}

// Note [matmul]
// As ATen: 1-D operands are promoted to matrices and the added dim removed
// afterwards; with a >2-D first operand and a 1/2-D second, the batch dims
// are folded into rows for one mm; otherwise batch dims broadcast and bmm runs.
Tensor MatmulBatched(const Tensor& a, const Tensor& b) {
  const IntList ba(a.sizes().begin(), a.sizes().end() - 2);
  const IntList bb(b.sizes().begin(), b.sizes().end() - 2);
  IntList batch = BroadcastShapes(ba, bb);
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  IntList ea = batch, eb = batch;
  ea.insert(ea.end(), {m, k});
  eb.insert(eb.end(), {b.size(-2), n});
  const int64_t nb = Numel(batch);
  Tensor out = bmm(a.expand(ea).reshape({nb, m, k}), b.expand(eb).reshape({nb, b.size(-2), n}));
  batch.insert(batch.end(), {m, n});
  return out.view(batch);
}

Tensor matmul_kernel(const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0) {
    throw SimError("both arguments to matmul need to be at least 1D, but they are " +
                   std::to_string(a.dim()) + "D and " + std::to_string(b.dim()) + "D");
  }
  if (a.dim() == 1 && b.dim() == 1) return mm(a.unsqueeze(0), b.unsqueeze(1)).view({});
  if (a.dim() == 2 && b.dim() == 1) return mm(a, b.unsqueeze(1)).squeeze(1);
  if (a.dim() == 1 && b.dim() == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  if (a.dim() == 2 && b.dim() == 2) return mm(a, b);
  if (a.dim() >= 3 && b.dim() <= 2) {
    const Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
    IntList out_sizes(a.sizes().begin(), a.sizes().end() - 1);
    if (b.dim() == 2) out_sizes.push_back(b.size(1));
    return mm(a.reshape({-1, a.size(-1)}), b2).view(out_sizes);
  }
  // Batched: give 1-D operands a matrix dim, then remove it from the result.
  const Tensor a3 = a.dim() == 1 ? a.unsqueeze(0) : a;
  const Tensor b3 = b.dim() == 1 ? b.unsqueeze(1) : b;
  Tensor out = MatmulBatched(a3, b3);
  if (a.dim() == 1) out = out.squeeze(-2);
  if (b.dim() == 1) out = out.squeeze(-1);
  return out;
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, CompositeExplicit, m) {
#define NSIM_BINARY_ALPHA(name) m.impl(#name ".Scalar", &name##_scalar);
#define NSIM_BINARY_SCALAR(name) m.impl(#name ".Scalar", &name##_scalar);
#define NSIM_BINARY_PLAIN(name)
#define NSIM_BINARY_EXPONENT(name) m.impl(#name ".Scalar", &name##_scalar);
#define NSIM_BINARY_OP(name, Name, form, ...) NSIM_BINARY_##form(name)
#include "backend/binary_ops.def"
#undef NSIM_BINARY_ALPHA
#undef NSIM_BINARY_SCALAR
#undef NSIM_BINARY_PLAIN
#undef NSIM_BINARY_EXPONENT
  m.impl("rsub.Scalar", &rsub_scalar);
  m.impl("square", &square_kernel);
#define NSIM_REDUCTION_DTYPE(name) m.impl(#name, &name##_all);
#define NSIM_REDUCTION_PLAIN(name)
#define NSIM_REDUCTION_OP(name, Name, form, ...) NSIM_REDUCTION_##form(name)
#include "backend/reduction_ops.def"
#undef NSIM_REDUCTION_DTYPE
#undef NSIM_REDUCTION_PLAIN
  m.impl("layer_norm", &layer_norm_kernel);
  m.impl("matmul", &matmul_kernel);
}

}  // namespace at
}  // namespace nsim
