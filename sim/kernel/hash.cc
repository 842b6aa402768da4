#include "sim/kernel/hash.h"

#include "sim/kernel/printer.h"

namespace nsim {

uint64_t Fnv1a64(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;  // FNV-1a 64 prime
  }
  return h;
}

uint64_t KernelHash(const Kernel& k) { return Fnv1a64(FormatKernel(k)); }

}  // namespace nsim
