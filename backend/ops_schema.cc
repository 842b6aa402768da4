// The aten operator schemas: every op is declared here, once, with its PyTorch
// name, overload and signature (as in native_functions.yaml); the pointwise
// unary and binary ops and the reductions come from their tables,
// backend/unary_ops.def, binary_ops.def and reduction_ops.def. Kernels for
// them are registered per dispatch key elsewhere (cpu/, meta/, composite/,
// and the Neuron lowering). The typed C++ API in ops.cc is checked against
// these declarations when first used.
#include "backend/library.h"

namespace nsim {
namespace at {

NSIM_LIBRARY(aten, m) {
  // Pointwise binary: the table's ops (backend/binary_ops.def). A Python
  // number operand arrives as a wrapped-number tensor in the .Tensor
  // overloads; the .Scalar overloads wrap and forward.
#define NSIM_BINARY_ALPHA(n)                                                                  \
  m.def(n ".Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");    \
  m.def(n ".Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor");
#define NSIM_BINARY_SCALAR(n)                                              \
  m.def(n ".Tensor(Tensor self, Tensor other) -> Tensor");     \
  m.def(n ".Scalar(Tensor self, Scalar other) -> Tensor");
#define NSIM_BINARY_PLAIN(n) m.def(n "(Tensor self, Tensor other) -> Tensor");
#define NSIM_BINARY_EXPONENT(n)                                       \
  m.def(n ".Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor");  \
  m.def(n ".Scalar(Scalar self, Tensor exponent) -> Tensor");
#define NSIM_BINARY_OP(name, Name, form, ...) NSIM_BINARY_##form(#name)
#include "backend/binary_ops.def"
#undef NSIM_BINARY_ALPHA
#undef NSIM_BINARY_SCALAR
#undef NSIM_BINARY_PLAIN
#undef NSIM_BINARY_EXPONENT
  m.def("rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor");
  m.def("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor");

  // Pointwise unary: the table's ops, then those with more arguments.
#define NSIM_UNARY_OP(name, ...) m.def(#name "(Tensor self) -> Tensor");
#include "backend/unary_ops.def"
  m.def("square(Tensor self) -> Tensor");
  m.def("gelu(Tensor self, *, str approximate='none') -> Tensor");

  // Selection: where.self is the one kernel (a predicated copy on the
  // device); masked_fill, threshold and threshold_backward are composites of
  // it (backend/composite/select_ops.cc).
  m.def("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor");
  m.def("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor");
  m.def("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor");
  m.def("threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor");
  m.def("threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor");

  // Composites of the unary table's log1p / log_sigmoid (composite/logexp_ops.cc).
  m.def("logaddexp(Tensor self, Tensor other) -> Tensor");
  m.def("xlogy.Tensor(Tensor self, Tensor other) -> Tensor");
  m.def("special_xlog1py(Tensor self, Tensor other) -> Tensor");
  m.def("softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor");
  m.def("log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)");

  // Reductions: the table's ops (backend/reduction_ops.def), then the others.
#define NSIM_REDUCTION_DTYPE(n, overload)                                                               \
  m.def(n "(Tensor self, *, ScalarType? dtype=None) -> Tensor");                                         \
  m.def(n overload "(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
#define NSIM_REDUCTION_PLAIN(n, overload) m.def(n overload "(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor");
#define NSIM_REDUCTION_OP(name, Name, form, overload, ...) NSIM_REDUCTION_##form(#name, overload)
#include "backend/reduction_ops.def"
#undef NSIM_REDUCTION_DTYPE
#undef NSIM_REDUCTION_PLAIN
  m.def("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  m.def("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  m.def("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor");
  m.def("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor");
  m.def("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor");
  m.def("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor");
  // Factories. nsim tensors do not resize: `out` must have ArangeSize's elements.
  m.def("arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)");
  m.def("var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor");

  // Linear algebra.
  m.def("mm(Tensor self, Tensor mat2) -> Tensor");
  m.def("bmm(Tensor self, Tensor mat2) -> Tensor");
  m.def("matmul(Tensor self, Tensor other) -> Tensor");

  // Neural-network functions.
  m.def("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor");
  m.def("native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)");
  m.def("layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor");
  m.def("_fused_rms_norm(Tensor input, int[] normalized_shape, Tensor? weight, float? eps) -> (Tensor, Tensor)");

  // What optimizers and autograd's backward formulas call: composite ops,
  // written once in terms of the ops above (backend/composite/training_ops.h),
  // which compile() also traces through (backend/compile/decompositions.cc).
  m.def("lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor");
  m.def("lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor");
  m.def("addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor");
  m.def("addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor");
  m.def("tanh_backward(Tensor grad_output, Tensor output) -> Tensor");
  m.def("sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor");
  m.def("gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor");
  m.def("_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor");
  m.def("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor");
  m.def("linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  m.def("_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor");
  // PyTorch's has a last argument `bool[3] output_mask`; every gradient is
  // computed (those of an absent weight or bias are undefined).
  m.def("native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias) -> (Tensor, Tensor, Tensor)");

  // Creation, copies and conversion. copy_ and _to_copy take tensors on
  // different devices on purpose, hence no device check.
  m.def("empty.memory_format(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor");
  m.def("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)");
  m.def("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
        DeviceCheck::kNoCheck);
  m.def("_to_copy(Tensor self, *, ScalarType? dtype=None, Device? device=None, bool non_blocking=False) -> Tensor",
        DeviceCheck::kNoCheck);
  m.def("to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False) -> Tensor(a)",
        DeviceCheck::kNoCheck);
  m.def("to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False) -> Tensor(a)");
  m.def("clone(Tensor self) -> Tensor");
  m.def("contiguous(Tensor(a) self) -> Tensor(a)");

  // Views: metadata only, sharing the input's storage.
  m.def("view(Tensor(a) self, int[] size) -> Tensor(a)");
  m.def("reshape(Tensor(a) self, int[] shape) -> Tensor(a)");
  m.def("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)");
  m.def("t(Tensor(a) self) -> Tensor(a)");
  m.def("permute(Tensor(a) self, int[] dims) -> Tensor(a)");
  m.def("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)");
  m.def("squeeze(Tensor(a) self) -> Tensor(a)");
  m.def("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)");
  m.def("slice.Tensor(Tensor(a) self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor(a)");
  m.def("narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)");
  m.def("select.int(Tensor(a) self, int dim, int index) -> Tensor(a)");
  m.def("expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)");
}

}  // namespace at
}  // namespace nsim
