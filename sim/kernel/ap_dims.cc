#include "sim/kernel/ap_dims.h"

#include <mutex>
#include <new>
#include <unordered_map>

#include "sim/base/word_hash.h"

namespace nsim {
namespace {

const ApDim* DimsOf(const ApDims::Rep* r) { return reinterpret_cast<const ApDim*>(r + 1); }

uint64_t HashDims(const ApDim* d, size_t n) {
  WordHash h;
  h.Mix(n);
  for (size_t i = 0; i < n; ++i) h.Mix(static_cast<uint64_t>(d[i].stride)).Mix(static_cast<uint64_t>(d[i].size));
  return h.value();
}

bool SameDims(const ApDim* a, size_t na, const ApDim* b, size_t nb) {
  if (na != nb) return false;
  for (size_t i = 0; i < na; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

struct Pool {
  std::mutex mu;
  std::unordered_multimap<uint64_t, const ApDims::Rep*> reps;  // by HashDims
};
Pool& ThePool() {
  static Pool* pool = new Pool;  // never destroyed: patterns may outlive static destruction
  return *pool;
}

}  // namespace

const ApDims::Rep* ApDims::Intern(const ApDim* dims, size_t n) {
  static const Rep kEmpty{0};
  if (n == 0) return &kEmpty;
  Pool& pool = ThePool();
  const uint64_t h = HashDims(dims, n);
  std::lock_guard<std::mutex> lock(pool.mu);
  const auto [first, last] = pool.reps.equal_range(h);
  for (auto it = first; it != last; ++it) {
    if (SameDims(DimsOf(it->second), it->second->size, dims, n)) return it->second;
  }
  void* mem = ::operator new(sizeof(Rep) + n * sizeof(ApDim));
  Rep* rep = new (mem) Rep{n};
  ApDim* out = reinterpret_cast<ApDim*>(rep + 1);
  for (size_t i = 0; i < n; ++i) new (out + i) ApDim(dims[i]);
  pool.reps.emplace(h, rep);
  return rep;
}

ApDims::ApDims() : rep_(Intern(nullptr, 0)) {}
ApDims::ApDims(std::initializer_list<ApDim> dims) : rep_(Intern(dims.begin(), dims.size())) {}
ApDims::ApDims(const std::vector<ApDim>& dims) : rep_(Intern(dims.data(), dims.size())) {}

ApDims ApDims::With(size_t i, ApDim d) const {
  std::vector<ApDim> v = vector();
  v.at(i) = d;
  return ApDims(v);
}

}  // namespace nsim
