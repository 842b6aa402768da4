#include "sim/kernel/hash.h"

#include "sim/kernel/printer.h"

namespace nsim {

namespace {

constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis

uint64_t Fnv1a64Update(uint64_t h, const std::string& bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;  // FNV-1a 64 prime
  }
  return h;
}

}  // namespace

uint64_t Fnv1a64(const std::string& bytes) { return Fnv1a64Update(kFnvBasis, bytes); }

// Piece by piece: the same hash as Fnv1a64(FormatKernel(k)) without holding
// the text of a million-instruction kernel.
uint64_t KernelHash(const Kernel& k) {
  uint64_t h = kFnvBasis;
  FormatKernelPieces(k, [&h](const std::string& piece) { h = Fnv1a64Update(h, piece); });
  return h;
}

}  // namespace nsim
