#pragma once
// A user's own suite: kernels they measured on their part, one per line,
//   NAME  KERNEL.nk  MEASURED  METHOD
// separated by spaces or tabs; MEASURED with a unit (19us, 6.97ms, 1810ns);
// METHOD one of device_execution (nrtpy), ncl (nki.benchmark nc_latency),
// profile_total (neuron-profile total_time). Kernel paths are relative to the
// suite file. '#' starts a comment.
#include <string>
#include <vector>

#include "validation/case.h"

namespace nsim {
namespace validation {

std::vector<Case> ReadSuiteFile(const std::string& path);

}  // namespace validation
}  // namespace nsim
