// aten::copy_ for Neuron tensors. The CompositeExplicit copy_
// (composite/conversion_ops.cc) moves contiguous bytes between devices and
// converts on the host; what it cannot do is the device side of a copy
// whose device tensor is strided, broadcast or of another dtype. This
// kernel does that part on the device — one generated kernel reading the
// source through its view and writing the destination through its own
// (casting on VectorE) — and hands the rest to the composite.
#include "backend/dispatcher.h"
#include "backend/empty_tensor.h"
#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"
#include "backend/neuron/op_lowering.h"
#include "backend/neuron/codegen/tiling.h"
#include "backend/tensor_impl.h"
#include "sim/base/error.h"
#include "backend/type_promotion.h"

namespace nsim {
namespace neuron {
namespace {

using at::Tensor;
const char* const kOp = "aten::copy_";

Tensor Composite(const Tensor& self, const Tensor& src, bool non_blocking) {
  static const at::KernelFunction& k =
      at::Dispatcher::Singleton().findSchemaOrThrow(kOp).entry().kernel(at::DispatchKey::CompositeExplicit);
  return k.callUnboxed<Tensor, const Tensor&, const Tensor&, bool>(self, src, non_blocking);
}

bool SameLayout(const Tensor& dst, const Tensor& src) {
  return dst.dtype() == src.dtype() && dst.sizes() == src.sizes() && dst.is_contiguous() && src.is_contiguous();
}

bool IsInteger(at::ScalarType t) { return at::IsIntegralType(t, /*include_bool=*/false); }

codegen::TensorDesc Broadcast(codegen::TensorDesc d, const Tensor& to) {
  const std::vector<int64_t> sizes(to.sizes().begin(), to.sizes().end());
  d.strides = codegen::BroadcastStrides(d.sizes, d.strides, sizes);
  d.sizes = sizes;
  return d;
}

// dst = src on one core, any layouts, src broadcast to dst, any dtypes the
// device computes in, converted as ATen converts (ExactCast).
void CastCopy(const Tensor& dst, const Tensor& src) {
  LaunchGraph(kOp, {{{"src", src}}, {{"dst", dst}}}, [&] {
    codegen::Graph g;
    g.Output(ExactCast(g, g.Input("src", Broadcast(DescOf(src), dst)), at::ToSimDType(dst.dtype())), "dst",
             DescOf(dst));
    return g;
  });
}

// int64 has no element type on the engines (sim/base/dtype.h: int8 to int32
// and floats, computed in fp32), so an int64 tensor is two int32 words in
// HBM, converted word by word, exactly as the CPU converts:
//   int64 -> int32/int16/int8/uint8: its low bytes (two's-complement
//     wrap-around), moved as the narrower type;
//   int64 -> bool: low word != 0 or high word != 0 (each exact in fp32);
//   int64 -> a float: refused, naming the op: the value needs 64-bit integer
//     arithmetic (narrow it with .int() when it fits int32);
//   integers and bool -> int64: the value as the low word, its sign (x < 0
//     -> -1) as the high word;
//   float -> int64: t = trunc(x) split as t = 2^32 h + l with l the signed
//     remainder in [-2^31, 2^31) (every step exact in fp32), stored as the
//     words l and h - (l < 0); NaN, inf and |x| >= 2^63 give INT64_MIN
//     as on x86-64 (undefined in C++).
void FromLong(const Tensor& dst, const Tensor& src) {
  if (IsInteger(dst.dtype())) return CastCopy(dst, ReinterpretAs(src, dst.dtype()));
  if (dst.dtype() != at::kBool) {
    throw SimError(std::string("converting int64 to ") + at::TorchDtypeName(dst.dtype()) +
                   " is not supported on the device (the engines have no int64 arithmetic; "
                   ".int() first when the values fit int32)");
  }
  const Tensor lo = ReinterpretAs(src, at::kInt, 0), hi = ReinterpretAs(src, at::kInt, 1);
  LaunchGraph(kOp, {{{"lo", lo}, {"hi", hi}}, {{"dst", dst}}}, [&] {
    codegen::Graph g;
    const codegen::ValueId l = g.Input("lo", Broadcast(DescOf(lo), dst)), h = g.Input("hi", Broadcast(DescOf(hi), dst));
    g.Output(g.Binary(codegen::OpKind::kLogicalOr, l, h, DType::kBool), "dst", DescOf(dst));
    return g;
  });
}

void ToLong(const Tensor& dst, const Tensor& src) {
  const Tensor lo = ReinterpretAs(dst, at::kInt, 0), hi = ReinterpretAs(dst, at::kInt, 1);
  const bool moved = src.dtype() == at::kInt;
  if (moved) CastCopy(lo, src);  // moved as int32: every bit kept
  GraphOperands operands{{{"src", src}}, {{"hi", hi}}};
  if (!moved) operands.outputs.push_back({"lo", lo});
  LaunchGraph(kOp, operands, [&] {
    using codegen::OpKind;
    codegen::Graph g;
    const codegen::ValueId x = g.Input("src", Broadcast(DescOf(src), dst));
    codegen::ValueId l = x, h;
    const codegen::ValueId zero = g.Constant(0.0);
    if (at::IsFloatingType(src.dtype())) {
      const codegen::ValueId t = g.Binary(OpKind::kSub, x, g.Unary(OpKind::kFrac, x, DType::kF32), DType::kF32);
      const codegen::ValueId q32 = g.Binary(OpKind::kMul, t, g.Constant(1.0 / 4294967296.0), DType::kF32);
      const codegen::ValueId k = g.Binary(OpKind::kSub, q32, g.Unary(OpKind::kFrac, q32, DType::kF32), DType::kF32);
      l = g.Binary(OpKind::kSub, t, k, DType::kF32, 4294967296.0);  // fmod(t, 2^32), in (-2^32, 2^32)
      l = g.Binary(OpKind::kSub, l, g.Binary(OpKind::kGe, l, g.Constant(2147483648.0), DType::kF32), DType::kF32,
                   4294967296.0);
      l = g.Binary(OpKind::kAdd, l, g.Binary(OpKind::kLt, l, g.Constant(-2147483648.0), DType::kF32), DType::kF32,
                   4294967296.0);
      // h = (t - l) / 2^32 - (l < 0): t - l is a multiple of 2^32, exact.
      h = g.Binary(OpKind::kMul, g.Binary(OpKind::kSub, t, l, DType::kF32), g.Constant(1.0 / 4294967296.0),
                   DType::kF32);
      h = g.Binary(OpKind::kSub, h, g.Binary(OpKind::kLt, l, zero, DType::kF32), DType::kF32);
      // NaN, inf and |t| >= 2^63 give INT64_MIN, as x86-64's cvttsd2si: words
      // 0 and -2^31 (the masked h goes through an int32 value, whose store
      // turns NaN into 0; l's store does the same).
      const codegen::ValueId in_range = g.Binary(OpKind::kLt, g.Unary(OpKind::kAbs, t, DType::kF32),
                                                 g.Constant(9223372036854775808.0), DType::kF32);
      l = g.Binary(OpKind::kMul, l, in_range, DType::kF32);
      h = g.Cast(g.Binary(OpKind::kMul, h, in_range, DType::kF32), DType::kI32);
      h = g.Binary(OpKind::kAdd, h, g.Binary(OpKind::kEq, in_range, zero, DType::kF32), DType::kF32, -2147483648.0);
    } else {
      h = g.Binary(OpKind::kMul, g.Binary(OpKind::kLt, x, zero, DType::kF32), g.Constant(-1.0), DType::kF32);
    }
    if (!moved) g.Output(g.Cast(l, DType::kI32), "lo", DescOf(lo));
    g.Output(g.Cast(h, DType::kI32), "hi", DescOf(hi));
    return g;
  });
}

// dst = src on one core, any layouts, src broadcast to dst, any dtypes the
// device holds, converted as ATen converts.
void DeviceCopy(const Tensor& dst, const Tensor& src) {
  if (src.dtype() == at::kLong && dst.dtype() == at::kLong) {
    CastCopy(ReinterpretAs(dst, at::kInt, 0), ReinterpretAs(src, at::kInt, 0));
    CastCopy(ReinterpretAs(dst, at::kInt, 1), ReinterpretAs(src, at::kInt, 1));
    return;
  }
  if (src.dtype() == at::kLong) return FromLong(dst, src);
  if (dst.dtype() == at::kLong) return ToLong(dst, src);
  // An integer narrowed, or uint8 <-> int8: its low bytes, exact for int32
  // too (the engines would read int32 in fp32).
  if (IsInteger(src.dtype()) && IsInteger(dst.dtype()) && dst.element_size() <= src.element_size() &&
      dst.dtype() != src.dtype()) {
    return CastCopy(dst, ReinterpretAs(src, dst.dtype()));
  }
  CastCopy(dst, src);
}

Tensor copy_(const Tensor& self, const Tensor& src, bool non_blocking) {
  at::CopyMeta(self, src);
  if (self.is_same(src) || self.numel() == 0) return self;
  const bool src_dev = !src.is_cpu(), dst_dev = !self.is_cpu();
  if (src_dev && dst_dev) {
    if (SameLayout(self, src)) return Composite(self, src, non_blocking);
    if (CoreIndex(self.device()) == CoreIndex(src.device())) {
      DeviceCopy(self, src);
      return self;
    }
    Tensor staged = at::EmptyTensor(self.sizes(), self.dtype(), src.device());  // convert where src is
    DeviceCopy(staged, src);
    return Composite(self, staged, non_blocking);
  }
  if (src_dev && !src.is_contiguous()) {  // device -> host: make the device side contiguous first
    Tensor staged = at::EmptyTensor(src.sizes(), src.dtype(), src.device());
    DeviceCopy(staged, src);
    return Composite(self, staged, non_blocking);
  }
  if (dst_dev && !self.is_contiguous()) {  // host -> device: land contiguous, then scatter on the device
    Tensor staged = at::EmptyTensor(self.sizes(), self.dtype(), self.device());
    Composite(staged, src, non_blocking);
    DeviceCopy(self, staged);
    return self;
  }
  return Composite(self, src, non_blocking);
}

// The range a fill value must lie in for an integer dtype, as c10's
// checked_convert: the type's range, for an integer into uint8 also down to
// -255 (negative integers wrap: fill_(-1) is 255; a negative float overflows).
void CheckFillRange(at::ScalarType dtype, const at::Scalar& value) {
  double lo = 0, hi = 0;
  const char* name = "";
  switch (dtype) {
    case at::kByte: lo = -255, hi = 255, name = "uint8_t"; break;
    case at::kChar: lo = -128, hi = 127, name = "int8_t"; break;
    case at::kShort: lo = -32768, hi = 32767, name = "int16_t"; break;
    case at::kInt: lo = -2147483648.0, hi = 2147483647.0, name = "int"; break;
    default: return;  // int64 holds every integer Scalar; floats and bool take any value
  }
  if (value.isBoolean()) return;
  if (!value.isIntegral() && dtype == at::kByte) lo = 0;  // a float does not wrap
  const double v = value.isIntegral() ? static_cast<double>(value.toLong()) : value.toDouble();
  if (!(v >= lo && v <= hi)) {
    throw SimError(std::string("value cannot be converted to type ") + name + " without overflow");
  }
}

// The value goes to the device as a 0-dim tensor and is broadcast into
// self by the copy (staged on the host, one transfer).
Tensor fill_(const Tensor& self, const at::Scalar& value) {
  CheckFillRange(self.dtype(), value);
  return copy_(self, at::WrappedScalarTensor(value), false);
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, Neuron, m) {
  m.impl("copy_", &copy_);
  m.impl("fill_.Scalar", &fill_);
}

}  // namespace neuron
}  // namespace nsim
