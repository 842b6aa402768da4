#include "benchmarks/rmsnorm/study_limits.h"

#include <cstdio>

#include "backend/scalar_type.h"
#include "sim/base/checked.h"

namespace nsim {
namespace study {
namespace {

std::string GiB(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

// --shape is bounded when parsed (tools/cli), so these products fit; checked anyway.
int64_t StudyElements(const StudyOptions& o) { return CheckedProduct(o.shape, 0, "study shape"); }

}  // namespace

int64_t StudyDeviceBytes(const StudyOptions& o) {
  return CheckedMul(kStudyLiveTensors * at::ElementSize(o.dtype), StudyElements(o), "study device bytes");
}

std::string StudyShapeProblem(const StudyOptions& o, const HardwareConfig& config) {
  const int64_t need = StudyDeviceBytes(o);
  if (need <= config.memory.hbm_bytes) return "";
  std::string shape;
  for (int64_t d : o.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
  return "--shape " + shape + ": " + std::to_string(StudyElements(o)) + " elements; the study keeps up to " +
         std::to_string(kStudyLiveTensors) + " tensors of this shape on the device (" + GiB(static_cast<double>(need)) +
         "), more than the " + GiB(static_cast<double>(config.memory.hbm_bytes)) + " of HBM of one " + config.name +
         " NeuronCore (chip.hbm_stack_capacity / cores per stack)";
}

}  // namespace study
}  // namespace nsim
