// Tensor's methods: metadata accessors, element access, and thin forwards to
// the dispatched ops in ops.h (ATen's TensorBody methods).
#include <cstring>

#include "backend/cpu/loops.h"
#include "backend/dispatcher.h"
#include "backend/ops.h"
#include "backend/tensor.h"

namespace nsim {
namespace at {
namespace {

using OptType = std::optional<ScalarType>;

// Address of the element at `index` of a CPU tensor, bounds-checked.
char* ElementAddress(const Tensor& t, const IntList& index) {
  if (!t.is_cpu()) {
    throw SimError("element access needs a CPU tensor, got one on " + t.device().str() +
                   "; call .cpu() first");
  }
  if (static_cast<int64_t>(index.size()) != t.dim()) {
    throw SimError("expected " + std::to_string(t.dim()) + " indices, got " +
                   std::to_string(index.size()));
  }
  int64_t offset = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    int64_t i = index[d];
    if (i < -t.size(d) || i >= t.size(d)) {
      throw SimError("index " + std::to_string(i) + " is out of bounds for dimension " +
                     std::to_string(d) + " with size " + std::to_string(t.size(d)));
    }
    if (i < 0) i += t.size(d);
    offset += i * t.stride(d);
  }
  return static_cast<char*>(t.data_ptr()) + offset * t.element_size();
}

}  // namespace

int64_t Tensor::size(int64_t dim) const { return sizes()[MaybeWrapDim(dim, this->dim())]; }
int64_t Tensor::stride(int64_t dim) const { return strides()[MaybeWrapDim(dim, this->dim())]; }

double Tensor::ReadElement(const IntList& index) const {
  return LoaderFor<double>(dtype())(ElementAddress(*this, index));
}

void Tensor::set(const IntList& index, double value) const {
  StorerFor<double>(dtype())(ElementAddress(*this, index), value);
}

Scalar Tensor::item() const {
  if (numel() != 1) {
    throw SimError("a Tensor with " + std::to_string(numel()) +
                   " elements cannot be converted to Scalar");
  }
  if (!is_cpu()) return cpu().item();
  if (dtype() == kLong) {  // beyond 2^53 a double would round it
    int64_t v;
    std::memcpy(&v, data_ptr(), sizeof v);
    return Scalar(v);
  }
  const double v = ReadElement(IntList(dim(), 0));
  if (IsFloatingType(dtype())) return Scalar(v);
  if (dtype() == kBool) return Scalar(v != 0);
  return Scalar(static_cast<int64_t>(v));
}

std::string Tensor::toString() const {
  if (!defined()) return "UndefinedTensor";
  return std::string(ToString(dtype())) + "Type" + ShapeToString(sizes()) + " on " + device().str();
}

// --- conversion ---

Tensor Tensor::to(Device device, ScalarType dtype, bool non_blocking, bool copy) const {
  static const auto op =
      FindOp<Tensor(const Tensor&, Device, ScalarType, bool, bool)>("aten::to.device");
  return op.call(*this, device, dtype, non_blocking, copy);
}
Tensor Tensor::to(Device device, bool non_blocking, bool copy) const {
  return to(device, dtype(), non_blocking, copy);
}
Tensor Tensor::to(ScalarType dtype, bool non_blocking, bool copy) const {
  static const auto op = FindOp<Tensor(const Tensor&, ScalarType, bool, bool)>("aten::to.dtype");
  return op.call(*this, dtype, non_blocking, copy);
}
Tensor Tensor::contiguous() const {
  static const auto op = FindOp<Tensor(const Tensor&)>("aten::contiguous");
  return op.call(*this);
}
Tensor Tensor::clone() const {
  static const auto op = FindOp<Tensor(const Tensor&)>("aten::clone");
  return op.call(*this);
}
Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) {
  static const auto op = FindOp<Tensor(const Tensor&, const Tensor&, bool)>("aten::copy_");
  op.call(*this, src, non_blocking);
  return *this;
}
Tensor& Tensor::fill_(const Scalar& value) {
  static const auto op = FindOp<Tensor(const Tensor&, const Scalar&)>("aten::fill_.Scalar");
  op.call(*this, value);
  return *this;
}

// --- views ---

Tensor Tensor::view(const IntList& size) const {
  static const auto op = FindOp<Tensor(const Tensor&, const IntList&)>("aten::view");
  return op.call(*this, size);
}
Tensor Tensor::reshape(const IntList& shape) const {
  static const auto op = FindOp<Tensor(const Tensor&, const IntList&)>("aten::reshape");
  return op.call(*this, shape);
}
Tensor Tensor::transpose(int64_t d0, int64_t d1) const { return at::transpose(*this, d0, d1); }
Tensor Tensor::t() const {
  static const auto op = FindOp<Tensor(const Tensor&)>("aten::t");
  return op.call(*this);
}
Tensor Tensor::permute(const IntList& dims) const { return at::permute(*this, dims); }
Tensor Tensor::unsqueeze(int64_t dim) const { return at::unsqueeze(*this, dim); }
Tensor Tensor::squeeze() const {
  static const auto op = FindOp<Tensor(const Tensor&)>("aten::squeeze");
  return op.call(*this);
}
Tensor Tensor::squeeze(int64_t dim) const { return at::squeeze(*this, dim); }
Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                     int64_t step) const {
  using OptInt = std::optional<int64_t>;
  static const auto op =
      FindOp<Tensor(const Tensor&, int64_t, OptInt, OptInt, int64_t)>("aten::slice.Tensor");
  return op.call(*this, dim, start, end, step);
}
Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  return at::narrow(*this, dim, start, length);
}
Tensor Tensor::select(int64_t dim, int64_t index) const { return at::select(*this, dim, index); }
Tensor Tensor::expand(const IntList& size) const {
  static const auto op = FindOp<Tensor(const Tensor&, const IntList&, bool)>("aten::expand");
  return op.call(*this, size, false);
}

// --- math ---

#define NSIM_BINARY_ALPHA(name)                                                                                      \
  Tensor Tensor::name(const Tensor& o, const Scalar& alpha) const { return at::name(*this, o, alpha); }  \
  Tensor Tensor::name(const Scalar& o, const Scalar& alpha) const { return at::name(*this, o, alpha); }
#define NSIM_BINARY_SCALAR(name)                                                                  \
  Tensor Tensor::name(const Tensor& o) const { return at::name(*this, o); }         \
  Tensor Tensor::name(const Scalar& o) const { return at::name(*this, o); }
#define NSIM_BINARY_PLAIN(name) \
  Tensor Tensor::name(const Tensor& o) const { return at::name(*this, o); }
#define NSIM_BINARY_EXPONENT NSIM_BINARY_PLAIN
#define NSIM_BINARY_OP(name, Name, form, ...) NSIM_BINARY_##form(name)
#include "backend/binary_ops.def"
#undef NSIM_BINARY_ALPHA
#undef NSIM_BINARY_SCALAR
#undef NSIM_BINARY_PLAIN
#undef NSIM_BINARY_EXPONENT
Tensor Tensor::pow(const Scalar& e) const { return at::pow(*this, e); }
#define NSIM_UNARY_OP(name, ...) \
  Tensor Tensor::name() const { return at::name(*this); }
#include "backend/unary_ops.def"
Tensor Tensor::square() const { return at::square(*this); }
#define NSIM_REDUCTION_DTYPE(name)                                                   \
  Tensor Tensor::name(OptType dtype) const { return at::name(*this, dtype); }       \
  Tensor Tensor::name(const IntList& dim, bool keepdim, OptType dtype) const {       \
    return at::name(*this, dim, keepdim, dtype);                                     \
  }
#define NSIM_REDUCTION_PLAIN(name) \
  Tensor Tensor::name(const IntList& dim, bool keepdim) const { return at::name(*this, dim, keepdim); }
#define NSIM_REDUCTION_OP(name, Name, form, ...) NSIM_REDUCTION_##form(name)
#include "backend/reduction_ops.def"
#undef NSIM_REDUCTION_DTYPE
#undef NSIM_REDUCTION_PLAIN
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return at::max(*this, dim, keepdim);
}
Tensor Tensor::var(const IntList& dim, double correction, bool keepdim) const {
  return at::var(*this, dim, correction, keepdim);
}
Tensor Tensor::mm(const Tensor& mat2) const { return at::mm(*this, mat2); }
Tensor Tensor::matmul(const Tensor& other) const { return at::matmul(*this, other); }
Tensor Tensor::softmax(int64_t dim, OptType dtype) const { return at::softmax(*this, dim, dtype); }

}  // namespace at
}  // namespace nsim
