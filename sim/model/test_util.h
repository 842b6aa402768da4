#pragma once
// Helpers for model tests: run kernel text on a named config and read HBM
// tensors back as floats.
#include <memory>
#include <string>
#include <vector>

#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/memory/access.h"
#include "sim/model/device.h"

namespace nsim {
namespace testing {

struct Run {
  std::unique_ptr<Device> device;
  Kernel kernel;
  ExecutionResult result;

  std::vector<float> Read(const std::string& tensor) const {
    const int t = kernel.FindTensor(tensor);
    const TensorDecl& d = kernel.tensors[t];
    std::vector<uint8_t> raw(static_cast<size_t>(d.NumElements() * DTypeSize(d.dtype)));
    device->hbm().Read(result.scratch_addresses.at(tensor), raw.data(), raw.size());
    std::vector<float> out(static_cast<size_t>(d.NumElements()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = LoadElement(d.dtype, &raw[i * DTypeSize(d.dtype)]);
    return out;
  }
  // The record of instruction `index` of `engine`'s stream.
  const InstructionRecord& Record(EngineId engine, int index) const {
    for (const InstructionRecord& r : result.instructions)
      if (r.engine == engine && r.index == index) return r;
    throw std::runtime_error("no record");
  }
  Picos Duration(EngineId engine, int index) const {
    const InstructionRecord& r = Record(engine, index);
    return r.end - r.start;
  }
};

inline Run RunText(const std::string& config, const std::string& text, const std::vector<std::string>& overrides = {}) {
  Run r;
  r.device = std::make_unique<Device>(LoadHardwareConfig(config, overrides));
  r.kernel = ParseKernel(text, "test.nk");
  r.result = r.device->Execute(r.kernel);
  return r;
}

}  // namespace testing
}  // namespace nsim
