#pragma once
// FNV-1a over 64-bit words, for hashing a record's fields to find equal
// records (interning, caches). Not a stable or persisted value (the kernel's
// content hash is FNV-1a over its text, sim/kernel/hash.h).
#include <cstdint>

namespace nsim {

class WordHash {
 public:
  WordHash& Mix(uint64_t v) {
    h_ = (h_ ^ v) * 0x100000001b3ull;  // FNV-1a 64 prime
    return *this;
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
};

}  // namespace nsim
