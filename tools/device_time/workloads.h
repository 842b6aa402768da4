#pragma once
// The project's own device-time regression workloads (goldens in
// tests/device_time_goldens.tsv): the RMSNorm study's three paths at the
// study's shape and larger ones, a matmul, softmax and a small MLP written
// against the ATen-like API, and the example kernels, on trn1, trn2 and trn3.
#include <vector>

#include "tools/device_time/gate.h"

namespace nsim {
namespace gate {

std::vector<Workload> BuiltinWorkloads();

}  // namespace gate
}  // namespace nsim
