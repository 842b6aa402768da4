// Each function looks its op up once (checking the C++ signature against
// the schema in ops_schema.cc) and calls it through the dispatcher.
#include "backend/ops.h"

#include "backend/dispatcher.h"
#include "backend/type_promotion.h"

namespace nsim {
namespace at {
namespace {

using T = const Tensor&;
using S = const Scalar&;
using OptT = const std::optional<Tensor>&;
using OptType = std::optional<ScalarType>;
using OptList = const std::optional<IntList>&;
using Tuple2 = std::tuple<Tensor, Tensor>;
using Tuple3 = std::tuple<Tensor, Tensor, Tensor>;

}  // namespace

#define NSIM_CALL(name, sig, ...)                  \
  static const auto op = FindOp<sig>(name);        \
  return op.call(__VA_ARGS__)

#define NSIM_BINARY_ALPHA(name)                                                                               \
  Tensor name(T self, T other, S alpha) {                                                         \
    NSIM_CALL("aten::" #name ".Tensor", Tensor(T, T, S), self, other, alpha);                     \
  }                                                                                               \
  Tensor name(T self, S other, S alpha) {                                                         \
    NSIM_CALL("aten::" #name ".Scalar", Tensor(T, S, S), self, other, alpha);                     \
  }
#define NSIM_BINARY_SCALAR(name)                                                                                         \
  Tensor name(T self, T other) { NSIM_CALL("aten::" #name ".Tensor", Tensor(T, T), self, other); }          \
  Tensor name(T self, S other) { NSIM_CALL("aten::" #name ".Scalar", Tensor(T, S), self, other); }
#define NSIM_BINARY_PLAIN(name) \
  Tensor name(T self, T other) { NSIM_CALL("aten::" #name, Tensor(T, T), self, other); }
#define NSIM_BINARY_EXPONENT(name)                                                                        \
  Tensor name(T self, T exponent) { NSIM_CALL("aten::" #name ".Tensor_Tensor", Tensor(T, T), self, exponent); } \
  Tensor name(S self, T exponent) { NSIM_CALL("aten::" #name ".Scalar", Tensor(S, T), self, exponent); }
#define NSIM_BINARY_OP(name, Name, form, ...) NSIM_BINARY_##form(name)
#include "backend/binary_ops.def"
#undef NSIM_BINARY_ALPHA
#undef NSIM_BINARY_SCALAR
#undef NSIM_BINARY_PLAIN
#undef NSIM_BINARY_EXPONENT
Tensor rsub(T self, S other, S alpha) { NSIM_CALL("aten::rsub.Scalar", Tensor(T, S, S), self, other, alpha); }
Tensor pow(T self, S exponent) { NSIM_CALL("aten::pow.Tensor_Scalar", Tensor(T, S), self, exponent); }

#define NSIM_UNARY_OP(name, ...) \
  Tensor name(T self) { NSIM_CALL("aten::" #name, Tensor(T), self); }
#include "backend/unary_ops.def"
Tensor square(T self) { NSIM_CALL("aten::square", Tensor(T), self); }
Tensor gelu(T self, const std::string& approximate) {
  NSIM_CALL("aten::gelu", Tensor(T, const std::string&), self, approximate);
}

Tensor where(T condition, T self, T other) {
  NSIM_CALL("aten::where.self", Tensor(T, T, T), condition, self, other);
}
Tensor masked_fill(T self, T mask, S value) {
  NSIM_CALL("aten::masked_fill.Scalar", Tensor(T, T, S), self, mask, value);
}
Tensor masked_fill(T self, T mask, T value) {
  NSIM_CALL("aten::masked_fill.Tensor", Tensor(T, T, T), self, mask, value);
}
Tensor threshold(T self, S threshold, S value) {
  NSIM_CALL("aten::threshold", Tensor(T, S, S), self, threshold, value);
}
Tensor logaddexp(T self, T other) { NSIM_CALL("aten::logaddexp", Tensor(T, T), self, other); }
Tensor threshold_backward(T grad_output, T self, S threshold) {
  NSIM_CALL("aten::threshold_backward", Tensor(T, T, S), grad_output, self, threshold);
}

#define NSIM_REDUCTION_DTYPE(name, overload)                                                        \
  Tensor name(T self, OptType dtype) { NSIM_CALL("aten::" #name, Tensor(T, OptType), self, dtype); } \
  Tensor name(T self, const IntList& dim, bool keepdim, OptType dtype) {                           \
    NSIM_CALL("aten::" #name overload, Tensor(T, OptList, bool, OptType), self, dim, keepdim, dtype); \
  }
#define NSIM_REDUCTION_PLAIN(name, overload)                                                  \
  Tensor name(T self, const IntList& dim, bool keepdim) {                                    \
    NSIM_CALL("aten::" #name overload, Tensor(T, const IntList&, bool), self, dim, keepdim); \
  }
#define NSIM_REDUCTION_OP(name, Name, form, overload, ...) NSIM_REDUCTION_##form(name, overload)
#include "backend/reduction_ops.def"
#undef NSIM_REDUCTION_DTYPE
#undef NSIM_REDUCTION_PLAIN
std::tuple<Tensor, Tensor> max(T self, int64_t dim, bool keepdim) {
  NSIM_CALL("aten::max.dim", Tuple2(T, int64_t, bool), self, dim, keepdim);
}
std::tuple<Tensor, Tensor> min(T self, int64_t dim, bool keepdim) {
  NSIM_CALL("aten::min.dim", Tuple2(T, int64_t, bool), self, dim, keepdim);
}
Tensor argmax(T self, std::optional<int64_t> dim, bool keepdim) {
  NSIM_CALL("aten::argmax", Tensor(T, std::optional<int64_t>, bool), self, dim, keepdim);
}
Tensor argmin(T self, std::optional<int64_t> dim, bool keepdim) {
  NSIM_CALL("aten::argmin", Tensor(T, std::optional<int64_t>, bool), self, dim, keepdim);
}
Tensor cumsum(T self, int64_t dim, std::optional<ScalarType> dtype) {
  NSIM_CALL("aten::cumsum", Tensor(T, int64_t, std::optional<ScalarType>), self, dim, dtype);
}
Tensor cumprod(T self, int64_t dim, std::optional<ScalarType> dtype) {
  NSIM_CALL("aten::cumprod", Tensor(T, int64_t, std::optional<ScalarType>), self, dim, dtype);
}
Tensor arange_out(T out, const Scalar& start, const Scalar& end, const Scalar& step) {
  NSIM_CALL("aten::arange.start_out", Tensor(const Scalar&, const Scalar&, const Scalar&, T), start, end, step, out);
}
Tensor var(T self, const IntList& dim, double correction, bool keepdim) {
  using OptS = const std::optional<Scalar>&;
  NSIM_CALL("aten::var.correction", Tensor(T, OptList, OptS, bool), self, dim,
            std::optional<Scalar>(correction), keepdim);
}

Tensor mm(T self, T mat2) { NSIM_CALL("aten::mm", Tensor(T, T), self, mat2); }
Tensor bmm(T self, T mat2) { NSIM_CALL("aten::bmm", Tensor(T, T), self, mat2); }
Tensor matmul(T self, T other) { NSIM_CALL("aten::matmul", Tensor(T, T), self, other); }

Tensor softmax(T self, int64_t dim, OptType dtype) {
  NSIM_CALL("aten::softmax.int", Tensor(T, int64_t, OptType), self, dim, dtype);
}
Tensor layer_norm(T input, const IntList& normalized_shape, OptT weight, OptT bias, double eps) {
  NSIM_CALL("aten::layer_norm", Tensor(T, const IntList&, OptT, OptT, double, bool), input,
            normalized_shape, weight, bias, eps, true);
}
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(T input, const IntList& normalized_shape,
                                                     OptT weight, OptT bias, double eps) {
  NSIM_CALL("aten::native_layer_norm",
            Tuple3(T, const IntList&, OptT, OptT, double), input,
            normalized_shape, weight, bias, eps);
}
std::tuple<Tensor, Tensor> _fused_rms_norm(T input, const IntList& normalized_shape, OptT weight,
                                           std::optional<double> eps) {
  NSIM_CALL("aten::_fused_rms_norm",
            Tuple2(T, const IntList&, OptT, std::optional<double>), input,
            normalized_shape, weight, eps);
}
Tensor rms_norm(T input, const IntList& normalized_shape, OptT weight, std::optional<double> eps) {
  return std::get<0>(_fused_rms_norm(input, normalized_shape, weight, eps));
}

Tensor empty(const IntList& size, const TensorOptions& options) {
  using OptDev = std::optional<Device>;
  NSIM_CALL("aten::empty.memory_format", Tensor(const IntList&, OptType, OptDev), size,
            options.dtype(), options.device());
}
Tensor _to_copy(T self, OptType dtype, std::optional<Device> device, bool non_blocking) {
  using OptDev = std::optional<Device>;
  NSIM_CALL("aten::_to_copy", Tensor(T, OptType, OptDev, bool), self, dtype, device, non_blocking);
}

Tensor transpose(T self, int64_t d0, int64_t d1) {
  NSIM_CALL("aten::transpose.int", Tensor(T, int64_t, int64_t), self, d0, d1);
}
Tensor permute(T self, const IntList& dims) {
  NSIM_CALL("aten::permute", Tensor(T, const IntList&), self, dims);
}
Tensor unsqueeze(T self, int64_t dim) { NSIM_CALL("aten::unsqueeze", Tensor(T, int64_t), self, dim); }
Tensor squeeze(T self, int64_t dim) { NSIM_CALL("aten::squeeze.dim", Tensor(T, int64_t), self, dim); }
Tensor narrow(T self, int64_t dim, int64_t start, int64_t length) {
  NSIM_CALL("aten::narrow", Tensor(T, int64_t, int64_t, int64_t), self, dim, start, length);
}
Tensor select(T self, int64_t dim, int64_t index) {
  NSIM_CALL("aten::select.int", Tensor(T, int64_t, int64_t), self, dim, index);
}

#undef NSIM_CALL

Tensor operator+(T a, T b) { return add(a, b); }
Tensor operator+(T a, S b) { return add(a, WrappedScalarTensor(b)); }
Tensor operator+(S a, T b) { return add(b, WrappedScalarTensor(a)); }
Tensor operator-(T a, T b) { return sub(a, b); }
Tensor operator-(T a, S b) { return sub(a, WrappedScalarTensor(b)); }
Tensor operator-(S a, T b) { return rsub(b, a); }
Tensor operator*(T a, T b) { return mul(a, b); }
Tensor operator*(T a, S b) { return mul(a, WrappedScalarTensor(b)); }
Tensor operator*(S a, T b) { return mul(b, WrappedScalarTensor(a)); }
Tensor operator/(T a, T b) { return div(a, b); }
Tensor operator/(T a, S b) { return div(a, WrappedScalarTensor(b)); }
Tensor operator/(S a, T b) { return mul(reciprocal(b), WrappedScalarTensor(a)); }
Tensor operator-(T a) { return neg(a); }

}  // namespace at
}  // namespace nsim
