#include "backend/meta/shape_functions.h"

#include <cmath>
#include <limits>
#include <string>

#include "backend/empty_tensor.h"
#include "backend/type_promotion.h"

namespace nsim {
namespace at {
namespace {

[[noreturn]] void Unsupported(const char* op, ScalarType t) {
  throw SimError(std::string("aten::") + op + " does not support dtype " + ToString(t));
}

}  // namespace

Tensor MakeOutput(const TensorMeta& m) { return EmptyTensor(m.sizes, m.dtype, m.device); }

Device OutputDevice(std::initializer_list<const Tensor*> inputs) {
  for (const Tensor* t : inputs) {
    if (t->defined() && !(t->is_cpu() && t->dim() == 0)) return t->device();
  }
  return Device(kCPU);
}

TensorMeta BinaryMeta(const Tensor& a, const Tensor& b, Promotion p) {
  if (p == Promotion::kNoBool && (a.dtype() == kBool || b.dtype() == kBool)) {
    throw SimError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                   "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  ScalarType dtype = ResultType(a, b);
  if (p == Promotion::kIntToFloat && !IsFloatingType(dtype)) dtype = kDefaultFloat;
  if (IsBoolValued(p)) dtype = kBool;
  return {BroadcastShapes(a.sizes(), b.sizes()), dtype, OutputDevice({&a, &b})};
}

ScalarType BinaryComputeType(const Tensor& a, const Tensor& b, Promotion p) {
  return IsBoolValued(p) ? ResultType(a, b) : BinaryMeta(a, b, p).dtype;
}

TensorMeta WhereMeta(const Tensor& condition, const Tensor& self, const Tensor& other) {
  if (condition.dtype() != kBool) {
    throw SimError(std::string("where expected condition to be a boolean tensor, but got a tensor with dtype ") +
                   ToString(condition.dtype()));
  }
  const IntList sizes = BroadcastShapes(BroadcastShapes(condition.sizes(), self.sizes()), other.sizes());
  return {sizes, ResultType(self, other), OutputDevice({&self, &other, &condition})};
}

TensorMeta PowMeta(const Tensor& self, const Scalar& exponent) {
  const ScalarType dtype = ResultType(self, exponent);
  if (IsIntegralType(dtype, true) && exponent.isIntegral() && exponent.toLong() < 0) {
    throw SimError("Integers to negative integer powers are not allowed.");
  }
  return {self.sizes(), dtype, self.device()};
}

TensorMeta UnaryMeta(const UnarySpec& spec, const Tensor& self) {
  ScalarType dtype = self.dtype();
  switch (spec.kind) {
    case UnaryKind::kKeep: break;
    case UnaryKind::kNoBool:
      if (dtype == kBool) {
        throw SimError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                       "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
      }
      break;
    case UnaryKind::kIntToFloat:
      if (!IsFloatingType(dtype)) dtype = kDefaultFloat;
      break;
    case UnaryKind::kFloatOnly:
      if (!IsFloatingType(dtype)) Unsupported(spec.name, dtype);
      break;
    case UnaryKind::kToBool: dtype = kBool; break;
  }
  return {self.sizes(), dtype, self.device()};
}

bool IsGeluTanh(const std::string& approximate) {
  if (approximate != "none" && approximate != "tanh") {
    throw SimError("approximate argument must be either none or tanh.");
  }
  return approximate == "tanh";
}

TensorMeta GeluMeta(const Tensor& self, const std::string& approximate) {
  IsGeluTanh(approximate);
  return UnaryMeta(unary::kGelu, self);
}

ReduceMetaResult ReduceMeta(const char* op, const Tensor& self, const std::optional<IntList>& dims,
                            bool keepdim, std::optional<ScalarType> dtype, ReduceKind kind) {
  const int64_t nd = self.dim();
  std::vector<bool> mask = (dims && !dims->empty()) ? DimMask(*dims, nd)
                                                    : std::vector<bool>(std::max<int64_t>(nd, 1), true);
  mask.resize(nd);
  ScalarType out_type = dtype.value_or(self.dtype());
  if (!dtype && kind == ReduceKind::kSum && IsIntegralType(out_type, true)) out_type = kInt;
  if ((kind == ReduceKind::kMean || kind == ReduceKind::kVar) && !IsFloatingType(out_type)) {
    throw SimError(std::string(op) + "(): could not infer output dtype. Input dtype must be either "
                   "a floating point or complex dtype. Got: " + ToString(out_type));
  }
  ReduceMetaResult r{{{}, out_type, self.device()}, mask, self.sizes(), 1};
  for (int64_t d = 0; d < nd; ++d) {
    if (!mask[d]) {
      r.out.sizes.push_back(self.size(d));
      continue;
    }
    if (kind == ReduceKind::kExtremum && self.size(d) == 0) {
      throw SimError(std::string(op) + "(): Expected reduction dim " + std::to_string(d) +
                     " to have non-zero size.");
    }
    r.count *= self.size(d);
    r.keepdim_sizes[d] = 1;
    if (keepdim) r.out.sizes.push_back(1);
  }
  return r;
}

ReduceMetaResult ArgReduceMeta(const char* op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (!dim && self.numel() == 0) {
    throw SimError(std::string(op) + "(): Expected reduction dim to be specified for input.numel() == 0.");
  }
  std::optional<IntList> dims;
  if (dim) dims = IntList{MaybeWrapDim(*dim, self.dim())};
  ReduceMetaResult r = ReduceMeta(op, self, dims, keepdim, std::nullopt, ReduceKind::kExtremum);
  r.out.dtype = kLong;
  return r;
}

TensorMeta CumsumMeta(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, int64_t* wrapped) {
  *wrapped = MaybeWrapDim(dim, self.dim());
  const ScalarType t = dtype ? *dtype : (IsIntegralType(self.dtype(), true) ? kLong : self.dtype());
  return {self.sizes(), t, self.device()};
}

int64_t ArangeSize(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dtype) {
  const double xstart = start.toDouble(), xend = end.toDouble(), xstep = step.toDouble();
  if (!(xstep > 0 || xstep < 0)) throw SimError("step must be nonzero");
  if (!std::isfinite(xstart) || !std::isfinite(xend)) {
    throw SimError("unsupported range: " + std::to_string(xstart) + " -> " + std::to_string(xend));
  }
  if (!((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart))) {
    throw SimError("upper bound and larger bound inconsistent with step sign");
  }
  double size_d;
  if (dtype == kLong && step.toLong() != 0) {  // int64 counts in int64
    const int64_t s = step.toLong(), sgn = (s > 0) - (s < 0);
    size_d = std::ceil(static_cast<double>((end.toLong() - start.toLong() + s - sgn) / s));
  } else {
    size_d = std::ceil((end.toDouble() - start.toDouble()) / step.toDouble());
  }
  if (!(size_d >= 0 && size_d <= static_cast<double>(std::numeric_limits<int64_t>::max()))) {
    throw SimError("invalid size, possible overflow?");
  }
  return static_cast<int64_t>(size_d);
}

void CheckArangeOut(const Scalar& start, const Scalar& end, const Scalar& step, const Tensor& out) {
  const int64_t n = ArangeSize(start, end, step, out.dtype());
  if (out.dim() != 1 || out.numel() != n) {
    throw SimError("arange.start_out: out must be 1-D with " + std::to_string(n) + " elements (got " +
                   std::to_string(out.dim()) + "-D with " + std::to_string(out.numel()) + "); resize it first");
  }
}

TensorMeta MmMeta(const Tensor& self, const Tensor& mat2) {
  if (self.dim() != 2) throw SimError("self must be a matrix");
  if (mat2.dim() != 2) throw SimError("mat2 must be a matrix");
  if (self.size(1) != mat2.size(0)) {
    throw SimError("mat1 and mat2 shapes cannot be multiplied (" + std::to_string(self.size(0)) +
                   "x" + std::to_string(self.size(1)) + " and " + std::to_string(mat2.size(0)) +
                   "x" + std::to_string(mat2.size(1)) + ")");
  }
  if (self.dtype() != mat2.dtype()) {
    throw SimError(std::string("expected mat1 and mat2 to have the same dtype, but got: ") +
                   ToString(self.dtype()) + " != " + ToString(mat2.dtype()));
  }
  return {{self.size(0), mat2.size(1)}, self.dtype(), OutputDevice({&self, &mat2})};
}

TensorMeta BmmMeta(const Tensor& self, const Tensor& mat2) {
  if (self.dim() != 3) throw SimError("batch1 must be a 3D tensor");
  if (mat2.dim() != 3) throw SimError("batch2 must be a 3D tensor");
  if (mat2.size(0) != self.size(0) || mat2.size(1) != self.size(2)) {
    throw SimError("Expected size for first two dimensions of batch2 tensor to be: [" +
                   std::to_string(self.size(0)) + ", " + std::to_string(self.size(2)) +
                   "] but got: [" + std::to_string(mat2.size(0)) + ", " +
                   std::to_string(mat2.size(1)) + "].");
  }
  if (self.dtype() != mat2.dtype()) {
    throw SimError(std::string("expected mat1 and mat2 to have the same dtype, but got: ") +
                   ToString(self.dtype()) + " != " + ToString(mat2.dtype()));
  }
  return {{self.size(0), self.size(1), mat2.size(2)}, self.dtype(), OutputDevice({&self, &mat2})};
}

TensorMeta SoftmaxMeta(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  MaybeWrapDim(dim, self.dim());
  const ScalarType out = dtype.value_or(self.dtype());
  if (!IsFloatingType(out)) Unsupported("softmax", out);
  return {self.sizes(), out, self.device()};
}

NormMetaResult NormMeta(const Tensor& input, const IntList& normalized_shape,
                        const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  const int64_t nd = input.dim(), nn = static_cast<int64_t>(normalized_shape.size());
  if (nn < 1) throw SimError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                             "containing at least one element, but got normalized_shape = []");
  const int64_t axis = nd - nn;
  bool ok = axis >= 0;
  for (int64_t i = 0; ok && i < nn; ++i) ok = input.size(axis + i) == normalized_shape[i];
  if (!ok) {
    std::string expect = ShapeToString(normalized_shape);
    throw SimError("Given normalized_shape=" + expect + ", expected input with shape [*, " +
                   expect.substr(1) + ", but got input of size" + ShapeToString(input.sizes()));
  }
  auto check = [&](const std::optional<Tensor>& p, const char* what) {
    if (p && p->defined() && p->sizes() != normalized_shape) {
      throw SimError(std::string("Expected ") + what + " to be of same shape as normalized_shape, "
                     "but got " + what + " of shape " + ShapeToString(p->sizes()) +
                     " and normalized_shape = " + ShapeToString(normalized_shape));
    }
  };
  check(weight, "weight");
  check(bias, "bias");
  if (!IsFloatingType(input.dtype())) Unsupported("layer_norm", input.dtype());
  IntList stat_sizes = input.sizes();
  for (int64_t d = axis; d < nd; ++d) stat_sizes[d] = 1;
  const int64_t cols = Numel(normalized_shape);
  return {{input.sizes(), input.dtype(), input.device()},
          {stat_sizes, kFloat, input.device()},
          axis,
          cols == 0 ? 0 : input.numel() / cols,
          cols};
}

double RmsNormDefaultEps(ScalarType dtype) {
  switch (dtype) {
    case kBFloat16: return 0.0078125;        // 2^-7
    case kHalf: return 0.0009765625;         // 2^-10
    default: return 1.1920928955078125e-07;  // 2^-23
  }
}

void CopyMeta(const Tensor& dst, const Tensor& src) {
  // As PyTorch's TensorIterator: the broadcast error first, then the output check.
  const IntList shape = BroadcastShapes(dst.sizes(), src.sizes());
  if (shape != dst.sizes()) {
    throw SimError("output with shape " + ShapeToString(dst.sizes()) +
                   " doesn't match the broadcast shape " + ShapeToString(shape));
  }
}

}  // namespace at
}  // namespace nsim
