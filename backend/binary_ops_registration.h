#pragma once
// The pointwise binary ops (and pow.Tensor_Scalar) that the CPU reference and
// the Neuron backend both implement, registered from one list so the two
// backends cover the same schemas:
//
//   NSIM_LIBRARY_IMPL(aten, CPU, m) {
//     RegisterBinaryOps(m, &add, &sub, &mul, &div, &maximum, &minimum, &pow);
//   }
#include "backend/library.h"
#include "backend/scalar.h"
#include "backend/tensor.h"

namespace nsim {
namespace at {

using AlphaBinaryFn = Tensor (*)(const Tensor&, const Tensor&, const Scalar&);
using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
using PowScalarFn = Tensor (*)(const Tensor&, const Scalar&);

inline void RegisterBinaryOps(Library& m, AlphaBinaryFn add, AlphaBinaryFn sub, BinaryFn mul,
                              BinaryFn div, BinaryFn maximum, BinaryFn minimum,
                              PowScalarFn pow) {
  m.impl("add.Tensor", add);
  m.impl("sub.Tensor", sub);
  m.impl("mul.Tensor", mul);
  m.impl("div.Tensor", div);
  m.impl("maximum", maximum);
  m.impl("minimum", minimum);
  m.impl("pow.Tensor_Scalar", pow);
}

}  // namespace at
}  // namespace nsim
