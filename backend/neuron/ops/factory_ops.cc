// Neuron kernels of the factories: arange.start_out, one GpSimd iota per
// tile (start + step * i, computed in double and rounded to fp32 by the
// instruction), cast into out's dtype on VectorE.
//
// The CPU computes start + step * i in the dtype's accumulate type (double
// for float32, float for bf16, int64 for the integers) and, vectorised, from
// a rounded base per vector: several roundings that fp32 cannot repeat bit
// for bit in general. When every value is exact they all agree: start and
// step are integer multiples a, b of one power of two and each a + b i is
// below 2^24 in magnitude (an fp32 integer). Other ranges are refused by
// name, never approximated.
#include <algorithm>
#include <cmath>
#include <string>

#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"
#include "sim/base/error.h"

namespace nsim {
namespace neuron {
namespace {

using at::Tensor;
using codegen::Graph;
using codegen::OpKind;
using codegen::ValueId;

constexpr double kExactInt = 16777216.0;  // 2^24: fp32 holds every integer below it

// The smallest k >= -64 with x * 2^k an integer (x = 0: -64), or a large k
// when x needs more than 200 fractional bits.
int ScaleToInteger(double x) {
  for (int k = -64; k <= 200; ++k) {
    const double y = std::ldexp(x, k);
    if (std::isfinite(y) && y == std::floor(y)) return k;
  }
  return 1000;
}

// Whether a, a + b, ..., a + b (n - 1) are integers below 2^24 in magnitude.
bool SmallIntegers(double a, double b, int64_t n) {
  const double last = a + b * static_cast<double>(n - 1);  // exact: all below 2^53
  return std::fabs(a) < kExactInt && std::fabs(b) < kExactInt && std::fabs(last) < kExactInt;
}

// The range of an integer dtype narrower than int32 (values outside wrap on the CPU).
bool InRange(at::ScalarType t, double first, double last) {
  double lo = -2147483648.0, hi = 2147483647.0;
  if (t == at::kByte) lo = 0, hi = 255;
  if (t == at::kChar) lo = -128, hi = 127;
  if (t == at::kShort) lo = -32768, hi = 32767;
  return std::min(first, last) >= lo && std::max(first, last) <= hi;
}

Tensor arange_out(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step, const Tensor& out) {
  const std::string op = "aten::arange.start_out";
  at::CheckArangeOut(start, end, step, out);
  const at::ScalarType t = out.dtype();
  if (t == at::kBool) throw SimError(op + ": no arange of dtype bool");
  const int64_t n = out.numel();
  if (n == 0) return out;
  const bool integral = at::IsIntegralType(t, false);
  double base = integral ? static_cast<double>(start.toLong()) : start.toDouble();
  double delta = integral ? static_cast<double>(step.toLong()) : step.toDouble();
  // Integers: the values themselves below 2^24; floats: scaled to integers by one power of two.
  const int k = integral ? 0 : std::max(ScaleToInteger(base), ScaleToInteger(delta));
  const double a = std::ldexp(base, k), b = std::ldexp(delta, k);
  const bool exact = k <= 126 && SmallIntegers(a, b, n) && std::floor(a) == a && std::floor(b) == b;
  if (!exact || (integral && !InRange(t, base, base + delta * static_cast<double>(n - 1)))) {
    throw SimError(op + ": arange(" + std::to_string(base) + ", step " + std::to_string(delta) + ", " +
                   std::to_string(n) + " elements) of dtype " + at::TorchDtypeName(t) +
                   " is not supported on the device: only ranges whose values are exact in fp32 "
                   "(integer multiples of one power of two, below 2^24 of it) match the CPU bit for bit");
  }
  RequireDeviceType(op, t == at::kLong ? at::kInt : t);
  if (t == at::kLong) {  // two int32 words: the value, and its sign
    const Tensor lo = ReinterpretAs(out, at::kInt, 0), hi = ReinterpretAs(out, at::kInt, 1);
    LaunchGraph(op, {{}, {{"lo", lo}, {"hi", hi}}}, [&] {
      Graph g;
      const ValueId v = g.Iota({n}, base, delta, DType::kF32);
      g.Output(g.Cast(v, DType::kI32), "lo", DescOf(lo));
      const ValueId negative = g.Binary(OpKind::kLt, v, g.Constant(0), DType::kF32);
      g.Output(g.Cast(g.Binary(OpKind::kMul, negative, g.Constant(-1), DType::kF32), DType::kI32), "hi", DescOf(hi));
      return g;
    });
    return out;
  }
  LaunchGraph(op, {{}, {{"out", out}}}, [&] {
    Graph g;
    g.Output(g.Cast(g.Iota({n}, base, delta, DType::kF32), at::ToSimDType(t)), "out", DescOf(out));
    return g;
  });
  return out;
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, Neuron, m) { m.impl("arange.start_out", &arange_out); }

}  // namespace neuron
}  // namespace nsim
