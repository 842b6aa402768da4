// Meta kernels: output shape, dtype and device of every op that is not
// composite, without touching data. Each is the op family's shape function
// plus an allocation on the meta device (which allocates nothing).
#include "backend/library.h"
#include "backend/meta/shape_functions.h"

namespace nsim {
namespace at {
namespace {

// Each op of backend/binary_ops.def: the shape function with its promotion
// (alpha does not change the shape or dtype).
template <Promotion P>
Tensor binary(const Tensor& a, const Tensor& b) {
  return MakeOutput(BinaryMeta(a, b, P));
}
template <Promotion P>
Tensor binary_alpha(const Tensor& a, const Tensor& b, const Scalar&) {
  return MakeOutput(BinaryMeta(a, b, P));
}
Tensor pow(const Tensor& self, const Scalar& e) { return MakeOutput(PowMeta(self, e)); }
Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) { return MakeOutput(WhereMeta(c, a, b)); }

template <const UnarySpec& kSpec>
Tensor unary_meta(const Tensor& self) {
  return MakeOutput(UnaryMeta(kSpec, self));
}
Tensor gelu(const Tensor& self, const std::string& approximate) { return MakeOutput(GeluMeta(self, approximate)); }

#define NSIM_REDUCTION_DTYPE(name, kind)                                                                 \
  Tensor name(const Tensor& self, const std::optional<IntList>& dim, bool keepdim,                      \
              std::optional<ScalarType> dtype) {                                                        \
    return MakeOutput(ReduceMeta(#name, self, dim, keepdim, dtype, ReduceKind::kind).out);              \
  }
#define NSIM_REDUCTION_PLAIN(name, kind)                                                                 \
  Tensor name(const Tensor& self, const IntList& dim, bool keepdim) {                                   \
    return MakeOutput(ReduceMeta(#name, self, dim, keepdim, std::nullopt, ReduceKind::kind).out);       \
  }
#define NSIM_REDUCTION_OP(name, Name, form, overload, kind, ...) NSIM_REDUCTION_##form(name, kind)
#include "backend/reduction_ops.def"
#undef NSIM_REDUCTION_DTYPE
#undef NSIM_REDUCTION_PLAIN
std::tuple<Tensor, Tensor> ExtremumDim(const char* op, const Tensor& self, int64_t dim, bool keepdim) {
  TensorMeta m = ArgReduceMeta(op, self, dim, keepdim).out;  // int64 indices
  Tensor indices = MakeOutput(m);
  m.dtype = self.dtype();
  return std::make_tuple(MakeOutput(m), indices);
}
std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return ExtremumDim("max", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> min_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return ExtremumDim("min", self, dim, keepdim);
}
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return MakeOutput(ArgReduceMeta("argmax", self, dim, keepdim).out);
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return MakeOutput(ArgReduceMeta("argmin", self, dim, keepdim).out);
}
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  int64_t d;
  return MakeOutput(CumsumMeta(self, dim, dtype, &d));
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return cumsum(self, dim, dtype); }
Tensor arange_out(const Scalar& start, const Scalar& end, const Scalar& step, const Tensor& out) {
  CheckArangeOut(start, end, step, out);
  return out;
}
Tensor var(const Tensor& self, const std::optional<IntList>& dim, const std::optional<Scalar>&,
           bool keepdim) {
  return MakeOutput(ReduceMeta("var", self, dim, keepdim, std::nullopt, ReduceKind::kVar).out);
}

Tensor mm(const Tensor& a, const Tensor& b) { return MakeOutput(MmMeta(a, b)); }
Tensor bmm(const Tensor& a, const Tensor& b) { return MakeOutput(BmmMeta(a, b)); }
Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return MakeOutput(SoftmaxMeta(self, dim, dtype));
}
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, const IntList& shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double) {
  const NormMetaResult r = NormMeta(input, shape, weight, bias);
  return std::make_tuple(MakeOutput(r.out), MakeOutput(r.stat), MakeOutput(r.stat));
}
std::tuple<Tensor, Tensor> fused_rms_norm(const Tensor& input, const IntList& shape,
                                          const std::optional<Tensor>& weight,
                                          std::optional<double>) {
  const NormMetaResult r = NormMeta(input, shape, weight, std::nullopt);
  return std::make_tuple(MakeOutput(r.out), MakeOutput(r.stat));
}

Tensor copy_(const Tensor& self, const Tensor& src, bool) {
  if (!self.is_meta()) throw SimError("Cannot copy out of meta tensor; no data!");
  CopyMeta(self, src);
  return self;
}
Tensor fill_(const Tensor& self, const Scalar&) { return self; }

}  // namespace

NSIM_LIBRARY_IMPL(aten, Meta, m) {
#define NSIM_BINARY_ALPHA(name, P) m.impl(#name ".Tensor", &binary_alpha<Promotion::P>);
#define NSIM_BINARY_SCALAR(name, P) m.impl(#name ".Tensor", &binary<Promotion::P>);
#define NSIM_BINARY_PLAIN(name, P) m.impl(#name, &binary<Promotion::P>);
#define NSIM_BINARY_EXPONENT(name, P) m.impl(#name ".Tensor_Tensor", &binary<Promotion::P>);
#define NSIM_BINARY_OP(name, Name, form, promotion, ...) NSIM_BINARY_##form(name, promotion)
#include "backend/binary_ops.def"
#undef NSIM_BINARY_ALPHA
#undef NSIM_BINARY_SCALAR
#undef NSIM_BINARY_PLAIN
#undef NSIM_BINARY_EXPONENT
  m.impl("pow.Tensor_Scalar", &pow);
#define NSIM_UNARY_OP(name, Name, ...) m.impl(#name, &unary_meta<unary::k##Name>);
#include "backend/unary_ops.def"
  m.impl("gelu", &gelu);
  m.impl("where.self", &where);
#define NSIM_REDUCTION_OP(name, Name, form, overload, ...) m.impl(#name overload, &name);
#include "backend/reduction_ops.def"
  m.impl("max.dim", &max_dim);
  m.impl("min.dim", &min_dim);
  m.impl("argmax", &argmax);
  m.impl("argmin", &argmin);
  m.impl("arange.start_out", &arange_out);
  m.impl("cumsum", &cumsum);
  m.impl("cumprod", &cumprod);
  m.impl("var.correction", &var);
  m.impl("mm", &mm);
  m.impl("bmm", &bmm);
  m.impl("softmax.int", &softmax);
  m.impl("native_layer_norm", &native_layer_norm);
  m.impl("_fused_rms_norm", &fused_rms_norm);
  m.impl("copy_", &copy_);
  m.impl("fill_.Scalar", &fill_);
}

}  // namespace at
}  // namespace nsim
