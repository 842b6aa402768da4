#pragma once
// Values kept once each (InternedPool), and the index that finds their ids by
// content hash (IdIndex). The index: open addressing with
// linear probing, at most half full. A slot is 8 bytes (32 bits of the hash
// and the id), against ~40 for a node of std::unordered_multimap: a kernel
// whose tiles all differ interns one access pattern per DMA, and a long
// kernel keeps them all (issue 12: memory per instruction).
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/base/error.h"

namespace nsim {

class IdIndex {
 public:
  // The id of a value with hash `h` for which `same(id)` holds, or -1.
  template <class Same>
  int64_t Find(uint64_t h, Same same) const {
    if (slots_.empty()) return -1;
    const uint32_t tag = Tag(h);
    const size_t mask = slots_.size() - 1;
    for (size_t i = tag & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.id_plus_one == 0) return -1;
      if (s.tag == tag && same(s.id_plus_one - 1)) return s.id_plus_one - 1;
    }
  }
  // Adds `id` (a value with hash `h` that Find did not find).
  void Insert(uint64_t h, uint32_t id) {
    if (2 * (used_ + 1) > slots_.size()) Grow();
    Place({Tag(h), id + 1});
    ++used_;
  }

 private:
  struct Slot {
    uint32_t tag = 0;
    uint32_t id_plus_one = 0;  // 0: empty
  };
  static uint32_t Tag(uint64_t h) { return static_cast<uint32_t>(h ^ (h >> 32)); }
  void Place(Slot s) {
    const size_t mask = slots_.size() - 1;
    size_t i = s.tag & mask;
    while (slots_[i].id_plus_one != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
  void Grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 16 : 2 * old.size(), Slot{});
    for (const Slot& s : old) {
      if (s.id_plus_one != 0) Place(s);
    }
  }

  std::vector<Slot> slots_;  // a power of two
  size_t used_ = 0;
};

// Distinct values of T with 32-bit ids, each kept once at a stable address
// (readers hold references into the pool). A copy has its own addresses; a
// move keeps them (a moved deque keeps its elements).
template <class T>
class InternedPool {
 public:
  InternedPool() = default;
  InternedPool(const InternedPool& o) : values_(o.values_), index_(o.index_) { Link(); }
  InternedPool& operator=(const InternedPool& o) {
    if (this != &o) {
      values_ = o.values_;
      index_ = o.index_;
      Link();
    }
    return *this;
  }
  InternedPool(InternedPool&&) = default;
  InternedPool& operator=(InternedPool&&) = default;

  // One load: on the per-instruction paths.
  const T& operator[](uint32_t id) const { return *at_[id]; }
  // The id of the value `same` accepts among those of hash `h`, or of `v` added.
  template <class Same>
  uint32_t Intern(const T& v, uint64_t h, Same same) {
    const int64_t found = index_.Find(h, [&](uint32_t id) { return same(*at_[id]); });
    if (found >= 0) return static_cast<uint32_t>(found);
    if (values_.size() >= UINT32_MAX) throw SimError("kernel too large: more than 2^32 distinct operands");
    const uint32_t id = static_cast<uint32_t>(values_.size());
    values_.push_back(v);
    at_.push_back(&values_.back());
    index_.Insert(h, id);
    return id;
  }

 private:
  void Link() {
    at_.clear();
    for (const T& v : values_) at_.push_back(&v);
  }
  std::deque<T> values_;
  std::vector<const T*> at_;  // by id
  IdIndex index_;
};

}  // namespace nsim
