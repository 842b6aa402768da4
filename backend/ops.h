#pragma once
// The typed C++ API over the dispatcher (what ATen's generated Functions.h
// is), plus operator sugar. Every function here is one dispatched op call;
// names and overloads follow PyTorch.
//
//   Tensor ms = x.mul(x).mean({-1}, /*keepdim=*/true);
//   Tensor y = x * rsqrt(ms + 1e-6) * w;            // op by op
//   Tensor z = rms_norm(x, {512}, w, 1e-6);         // one aten::_fused_rms_norm
//
// Operators with a Python number follow Python's semantics, since that is
// what the study profiled: `x + 1e-6` is aten::add.Tensor with a
// wrapped-number tensor (not add.Scalar), `1 - x` is aten::rsub.Scalar and
// `2 / x` is reciprocal(x) * 2. The .Scalar overloads are what the C++-style
// calls add(x, Scalar) / x.add(Scalar) reach.
#include <optional>
#include <string>
#include <tuple>

#include "backend/scalar.h"
#include "backend/tensor.h"
#include "backend/tensor_options.h"

namespace nsim {
namespace at {

// --- pointwise binary: add, sub, mul, ... (backend/binary_ops.def) ---
#define NSIM_BINARY_ALPHA(name)                                                                  \
  Tensor name(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);   \
  Tensor name(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
#define NSIM_BINARY_SCALAR(name)                                        \
  Tensor name(const Tensor& self, const Tensor& other);    \
  Tensor name(const Tensor& self, const Scalar& other);
#define NSIM_BINARY_PLAIN(name) Tensor name(const Tensor& self, const Tensor& other);
#define NSIM_BINARY_EXPONENT(name)                          \
  Tensor name(const Tensor& self, const Tensor& exponent); \
  Tensor name(const Scalar& self, const Tensor& exponent);
#define NSIM_BINARY_OP(name, Name, form, ...) NSIM_BINARY_##form(name)
#include "backend/binary_ops.def"
#undef NSIM_BINARY_ALPHA
#undef NSIM_BINARY_SCALAR
#undef NSIM_BINARY_PLAIN
#undef NSIM_BINARY_EXPONENT
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);  // other - alpha * self
Tensor pow(const Tensor& self, const Scalar& exponent);

// --- pointwise unary: neg, abs, exp, ... (backend/unary_ops.def) ---
#define NSIM_UNARY_OP(name, ...) Tensor name(const Tensor& self);
#include "backend/unary_ops.def"
Tensor square(const Tensor& self);
Tensor gelu(const Tensor& self, const std::string& approximate = "none");

// --- selection ---
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value);
Tensor logaddexp(const Tensor& self, const Tensor& other);
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold);

// --- reductions: sum, mean, amax, ... (backend/reduction_ops.def) ---
#define NSIM_REDUCTION_DTYPE(name)                                            \
  Tensor name(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt); \
  Tensor name(const Tensor& self, const IntList& dim, bool keepdim = false,       \
              std::optional<ScalarType> dtype = std::nullopt);
#define NSIM_REDUCTION_PLAIN(name) Tensor name(const Tensor& self, const IntList& dim = {}, bool keepdim = false);
#define NSIM_REDUCTION_OP(name, Name, form, ...) NSIM_REDUCTION_##form(name)
#include "backend/reduction_ops.def"
#undef NSIM_REDUCTION_DTYPE
#undef NSIM_REDUCTION_PLAIN
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);
// The smallest element along `dim` and its (first) int64 index, NaN first as max's.
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false);
// The (first) index of the largest / smallest element along `dim` (every
// dim, flattened, when absent), as int64; NaN counts as the extreme.
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
// The running sum along `dim` (integers and bool give int64 unless `dtype`).
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
// The running product along `dim` (the same dtype rule).
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
// out[i] = start + i * step (ATen's arange); `out` is 1-D with ArangeSize
// (meta/shape_functions.h) elements. Returns out.
Tensor arange_out(const Tensor& out, const Scalar& start, const Scalar& end, const Scalar& step = 1);
Tensor var(const Tensor& self, const IntList& dim, double correction = 1, bool keepdim = false);

// --- linear algebra ---
Tensor mm(const Tensor& self, const Tensor& mat2);
Tensor bmm(const Tensor& self, const Tensor& mat2);
Tensor matmul(const Tensor& self, const Tensor& other);

// --- neural-network functions ---
Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor layer_norm(const Tensor& input, const IntList& normalized_shape,
                  const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input,
                                                     const IntList& normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps);
// torch.rms_norm: one dispatched call, aten::_fused_rms_norm (eps defaults to finfo(dtype).eps).
Tensor rms_norm(const Tensor& input, const IntList& normalized_shape,
                const std::optional<Tensor>& weight = std::nullopt,
                std::optional<double> eps = std::nullopt);
std::tuple<Tensor, Tensor> _fused_rms_norm(const Tensor& input, const IntList& normalized_shape,
                                           const std::optional<Tensor>& weight,
                                           std::optional<double> eps);

// --- creation and copies ---
Tensor empty(const IntList& size, const TensorOptions& options = {});
Tensor _to_copy(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device,
                bool non_blocking = false);

// --- views (also available as Tensor methods) ---
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& self, const IntList& dims);
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor squeeze(const Tensor& self, int64_t dim);
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& self, int64_t dim, int64_t index);

// --- operator sugar (Python semantics, see above) ---
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);

}  // namespace at
}  // namespace nsim
