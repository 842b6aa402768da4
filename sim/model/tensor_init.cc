#include "sim/model/tensor_init.h"

#include <cmath>
#include <string>
#include <vector>

#include "sim/base/error.h"

namespace nsim {
namespace {

// Scratch HBM tensors are written in full (zeros or their init) by every
// standalone run; this bounds the host memory one of them takes.
constexpr int64_t kMaxScratchBytes = int64_t{1} << 30;

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double Uniform(uint64_t* state) { return static_cast<double>(SplitMix64(state) >> 11) * 0x1.0p-53; }

float Value(const TensorInit& init, int64_t i, uint64_t* state) {
  switch (init.kind) {
    case TensorInit::kOnes: return 1.0f;
    case TensorInit::kConst: return static_cast<float>(init.value);
    case TensorInit::kIota: return static_cast<float>(i);
    case TensorInit::kRand: return static_cast<float>(Uniform(state));
    case TensorInit::kRandn: {
      const double u1 = 1.0 - Uniform(state), u2 = Uniform(state);
      return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
    }
    default: return 0.0f;
  }
}

}  // namespace

void InitializeTensor(const TensorDecl& t, uint64_t address, HbmMemory& hbm) {
  const int64_t n = t.NumElements();
  const int es = DTypeSize(t.dtype);
  if (n * es > kMaxScratchBytes) {  // fits: the kernel loader checked the shape's bytes
    throw SimError("HBM tensor '" + t.name + "' (" + std::to_string(n * es) +
                   " bytes) is not bound to device memory, so the run initialises it in host memory; at most " +
                   std::to_string(kMaxScratchBytes >> 20) + " MiB per tensor. Bind it to a device address instead");
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(n * es), 0);
  if (t.init.kind != TensorInit::kNone && t.init.kind != TensorInit::kZeros) {
    uint64_t state = t.init.seed;
    for (int64_t i = 0; i < n; ++i) StoreElement(t.dtype, &bytes[i * es], Value(t.init, i, &state));
  }
  hbm.Write(address, bytes.data(), bytes.size());
}

}  // namespace nsim
