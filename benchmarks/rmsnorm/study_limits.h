#pragma once
// What bounds the study's shape: the device memory (HBM) of the one
// NeuronCore it runs on. The op-by-op implementation keeps five tensors of the
// input's shape on the device at once (x, the previous step's output, x * x,
// x * rsqrt(...), the new output) plus small ones (per-row statistics, eps);
// a sixth covers those (study_limits_test measures the peak).
#include <cstdint>
#include <string>

#include "benchmarks/rmsnorm/study_runner.h"
#include "sim/config/hw_config.h"

namespace nsim {
namespace study {

constexpr int64_t kStudyLiveTensors = 6;

// Device bytes the study needs at most for o.shape and o.dtype.
int64_t StudyDeviceBytes(const StudyOptions& o);

// "" when the study fits the core's HBM (config.memory.hbm_bytes), else why not,
// naming the shape, the bytes needed and the capacity.
std::string StudyShapeProblem(const StudyOptions& o, const HardwareConfig& config);

}  // namespace study
}  // namespace nsim
