#pragma once
// The measured figures of the reference study (shared/reference/seed-study.md):
// RMSNorm over a 4x512 bf16 input on real Trainium (most likely Trn2), three
// ways, profiled with wait=2, warmup=1, active=1, synchronize() in the loop.
#include <string>
#include <vector>

namespace nsim {
namespace study {

struct MeasuredOp {  // one row of the op-by-op key_averages() table
  std::string name;
  int calls;
  double self_cpu_us;
  double self_neuron_us;
};

struct MeasuredImpl {  // one row of the side-by-side table
  std::string name;
  int dispatches;
  double self_neuron_us;
  double self_cpu_us;
};

inline const std::vector<MeasuredOp>& OpByOpRows() {
  static const std::vector<MeasuredOp> rows = {
      {"aten::mul", 3, 60.9, 1164.5},
      {"aten::add", 1, 26.6, 434.6},
      {"aten::rsqrt", 1, 15.6, 415.0},
      {"aten::mean", 1, 21.1, 340.8},
  };
  return rows;
}

inline const std::vector<MeasuredImpl>& Implementations() {
  static const std::vector<MeasuredImpl> rows = {
      {"op by op", 6, 2355.0, 125.0},
      {"rms_norm", 1, 403.3, 47.6},
      {"compiled", 1, 375.5, 98.4},
  };
  return rows;
}

}  // namespace study
}  // namespace nsim
