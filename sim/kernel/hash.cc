#include "sim/kernel/hash.h"

namespace nsim {

namespace {

constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
constexpr uint64_t kFnvPrime = 0x100000001b3ull;       // FNV-1a 64 prime

uint64_t Fnv1a64Update(uint64_t h, std::string_view bytes) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(bytes.data());
  for (size_t n = bytes.size(); n > 0; --n, ++p) h = (h ^ *p) * kFnvPrime;
  return h;
}

}  // namespace

uint64_t Fnv1a64(const std::string& bytes) { return Fnv1a64Update(kFnvBasis, bytes); }

KernelHasher::KernelHasher(const Kernel& k)
    : h_(kFnvBasis), pieces_(k, [this](std::string_view piece) { h_ = Fnv1a64Update(h_, piece); }) {}

// The same hash as Fnv1a64(FormatKernel(k)) without holding the text of a
// million-instruction kernel.
uint64_t KernelHash(const Kernel& k) {
  if (k.loops()) return Fnv1a64(FormatKernel(k));  // the loop form: as long as the text
  KernelHasher hasher(k);
  for (int e = 0; e < kNumEngines; ++e) {
    for (const InstructionView& in : k.stream(e)) hasher.Add(e, in);
  }
  return hasher.hash();
}

}  // namespace nsim
