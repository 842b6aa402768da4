#include "benchmarks/rmsnorm/study_limits.h"

#include <cstdio>

#include "backend/scalar_type.h"

namespace nsim {
namespace study {
namespace {

std::string GiB(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace

int64_t StudyDeviceBytes(const StudyOptions& o) {
  int64_t elements = 1;
  for (int64_t d : o.shape) elements *= d;
  return kStudyLiveTensors * elements * at::ElementSize(o.dtype);
}

std::string StudyShapeProblem(const StudyOptions& o, const HardwareConfig& config) {
  const int64_t need = StudyDeviceBytes(o);
  if (need <= config.memory.hbm_bytes) return "";
  int64_t elements = 1;
  std::string shape;
  for (int64_t d : o.shape) {
    elements *= d;
    shape += (shape.empty() ? "" : ",") + std::to_string(d);
  }
  return "--shape " + shape + ": " + std::to_string(elements) + " elements; the study keeps up to " +
         std::to_string(kStudyLiveTensors) + " tensors of this shape on the device (" + GiB(static_cast<double>(need)) +
         "), more than the " + GiB(static_cast<double>(config.memory.hbm_bytes)) + " of HBM of one " + config.name +
         " NeuronCore (chip.hbm_stack_capacity / cores per stack)";
}

}  // namespace study
}  // namespace nsim
