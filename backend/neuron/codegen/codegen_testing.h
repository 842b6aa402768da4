#pragma once
// Test helper: runs a Graph through GenerateKernel on a runtime NeuronCore
// with host data, the way the eager backend binds tensors, and returns the
// outputs as floats (each a flat array of the output's Extent()).
#include <map>
#include <string>
#include <vector>

#include "backend/neuron/codegen/generate.h"
#include "runtime/runtime.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace testing {

struct DeviceRun {
  std::map<std::string, std::vector<float>> outputs;
  GeneratedKernel kernel;
  Picos device_time = 0;
};

// `inputs` maps each input name to Extent() values (in its dtype's range).
DeviceRun RunOnDevice(const Graph& g, const std::map<std::string, std::vector<float>>& inputs,
                      const GenerateOptions& options = {}, int core = 0);

// Rounds like a store of `t`.
inline float R(DType t, float v) { return RoundTo(t, v); }

// Deterministic pseudo-random values in [-scale, scale), rounded to `t`.
std::vector<float> Random(size_t n, uint64_t seed, DType t, float scale = 1.0f);

}  // namespace testing
}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
