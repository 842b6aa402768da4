#pragma once
// Errors of the runtime layer: a bad core index, an unknown stream, running
// out of device memory, freeing what was never allocated, binding a tensor
// outside its allocation, running a kernel loaded on another core. A
// SimError, so callers that already catch the simulator's errors catch these
// too; the message names the core ("neuron:0"), the call and the values.
#include <cstdint>
#include <cstdio>
#include <string>

#include "sim/base/error.h"

namespace nsim {
namespace rt {

class RuntimeError : public SimError {
 public:
  explicit RuntimeError(const std::string& what) : SimError(what) {}
};

// "0x1f000": how messages print device addresses.
inline std::string HexAddress(uint64_t address) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(address));
  return buf;
}

}  // namespace rt
}  // namespace nsim
