// gather on neuron, composed from device kernels: each output element picks
// self[..., index, ...] along `dim` by a one-hot select (int64 or int32 eq of the
// index against the GpSimd iota of positions) and a sum over the positions
// (one nonzero term: exact), m x n compares per row (m indices, n
// positions). Floating inputs only; an index outside 0..n-1 matches no
// position and is refused naming the op, as the CPU refuses it.
#include <optional>

#include <ATen/ATen.h>
#include <ATen/WrapDimUtils.h>
#include <torch/library.h>

#include "torch_nsim/csrc/out_variant.h"
#include "torch_nsim/csrc/wrapped_number.h"

namespace torch_nsim {
namespace {

using at::Tensor;

Tensor Gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  const char* op = "aten::gather";
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()), op, " on neuron: floating dtypes only, not ",
                              self.scalar_type());
  TORCH_CHECK(index.scalar_type() == c10::kLong || index.scalar_type() == c10::kInt, op,
              "(): Expected dtype int32/int64 for index");
  const Tensor s = self.dim() == 0 ? self.reshape({1}) : self;
  const Tensor ix = index.dim() == 0 ? index.reshape({1}) : index;
  TORCH_CHECK(s.dim() == ix.dim(), op, ": Index tensor must have the same number of dimensions as input tensor");
  const int64_t d = at::maybe_wrap_dim(dim, s.dim());
  Tensor x = s;
  for (int64_t k = 0; k < s.dim(); ++k) {
    if (k == d) continue;
    TORCH_CHECK(ix.size(k) <= s.size(k), op, ": Size does not match at dimension ", k,
                " expected index ", ix.sizes(), " to be no larger than self ", s.sizes(), " apart from dimension ", d);
    x = x.narrow(k, 0, ix.size(k));
  }
  if (ix.numel() == 0) return at::empty(index.sizes(), self.options());
  const int64_t n = s.size(d);
  const Tensor xm = x.movedim(d, -1).to(c10::kFloat).unsqueeze(-2);  // [..., 1, n]
  const Tensor im = ix.movedim(d, -1).unsqueeze(-1);                   // [..., m, 1]
  const Tensor hit = at::eq(im, at::arange(n, ix.options()));         // [..., m, n]
  TORCH_CHECK(at::all(at::any(hit, -1)).item<bool>(), op, ": index out of bounds for dimension ", d, " with size ",
              n);
  const Tensor r = at::sum(at::where(hit, xm, Wrapped(-0.0)), {-1}).movedim(-1, d);
  return r.to(self.scalar_type()).reshape(index.sizes()).contiguous();
}

Tensor& GatherOut(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad, Tensor& out) {
  return CopyToOut(Gather(self, dim, index, sparse_grad), out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("gather", &Gather);
  m.impl("gather.out", &GatherOut);
}

}  // namespace torch_nsim
