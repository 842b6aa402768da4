// libFuzzer target: parse a kernel, load it onto a trn2 device and run it.
// Every input parses, loads and runs, or throws SimError (bad operands,
// capacity, deadlock, races, overflow). Small limits keep each run short:
// kernels that move more than kMaxElements per access or declare more than
// kMaxInstructions are skipped, not run.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"

namespace {

constexpr int64_t kMaxElements = 1 << 16;
constexpr size_t kMaxInstructions = 64;

bool Small(const nsim::Kernel& k) {
  if (k.NumInstructions() > kMaxInstructions) return false;
  for (int e = 0; e < nsim::kNumEngines; ++e) {
    for (const nsim::InstructionView& in : k.stream(e)) {
      for (const nsim::AccessPattern* ap : {&in.dst, &in.src0, &in.src1, &in.acc, &in.scalar0.ap, &in.scalar1.ap}) {
        if (ap->present() && ap->NumElements() > kMaxElements) return false;
      }
    }
  }
  for (const nsim::TensorDecl& t : k.tensors) {
    if (t.NumElements() > kMaxElements * 16) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static nsim::Device* device = new nsim::Device(nsim::LoadHardwareConfig("trn2"));
  nsim::Kernel k;
  try {
    // Loops past kMaxInstructions would be skipped anyway: stop unrolling them there.
    k = nsim::ParseKernel(std::string(reinterpret_cast<const char*>(data), size), "fuzz.nk", nsim::ProgramIndex{},
                          4 * kMaxInstructions);
  } catch (const nsim::SimError&) {
    return 0;
  }
  if (!Small(k)) return 0;
  try {
    device->Execute(k);
  } catch (const nsim::SimError&) {
  }
  return 0;
}
