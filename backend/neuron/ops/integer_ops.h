#pragma once
// add / sub (a + alpha * b, alpha 1 or -1) and eq / ne of integer tensors,
// exact for every value and dtype (int64 included) though the engines
// compute in fp32: limb by limb, with carries (integer_ops.cc).
#include <string>

#include "backend/meta/shape_functions.h"
#include "backend/tensor.h"

namespace nsim {
namespace neuron {

// `m` is the op's result (an integer dtype other than Bool); `op` names the
// kernel and the errors (another alpha is refused naming it).
at::Tensor IntegerAdd(const std::string& op, const at::TensorMeta& m, at::Tensor a, at::Tensor b,
                      const at::Scalar& alpha);

// eq (`equal`) or ne of operands compared as integer dtype `compute`; `m`
// is the Bool result.
at::Tensor IntegerEqual(const std::string& op, const at::TensorMeta& m, at::ScalarType compute, at::Tensor a,
                        at::Tensor b, bool equal);

}  // namespace neuron
}  // namespace nsim
