#pragma once
// The three RMSNorm implementations of the study, over the same input.
#include <string>
#include <vector>

#include "benchmarks/rmsnorm/study_runner.h"

namespace nsim {
namespace study {

struct Implementation {
  std::string name;  // "op by op", "rms_norm", "compiled"
  RmsNormFn fn;
};

// x * rsqrt(mean(x^2, -1, keepdim) + eps) * w, each step a separate ATen op:
// square, mean, add eps, rsqrt, normalise, scale (as in the study).
at::Tensor RmsNormOpByOp(const at::Tensor& x, const at::Tensor& w, double eps);

std::vector<Implementation> StudyImplementations(const StudyOptions& o);

}  // namespace study
}  // namespace nsim
