#pragma once
// The dims of an access pattern, interned: one immutable copy of each
// distinct list per process, which an AccessPattern points to (8 bytes, no
// heap array of its own). A kernel walking a large tensor has a distinct
// pattern per tile (the offset moves) but only a few distinct dims lists, and
// a long kernel keeps every pattern (issue 12: memory per instruction).
// Interned lists are never freed: a process holds one per distinct tile shape
// and stride of the kernels it builds.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace nsim {

struct ApDim {
  int64_t stride = 0;
  int64_t size = 0;
};
inline bool operator==(const ApDim& a, const ApDim& b) { return a.stride == b.stride && a.size == b.size; }
inline bool operator!=(const ApDim& a, const ApDim& b) { return !(a == b); }

// Reads as a const std::vector<ApDim>; assigned whole (from a vector or a
// braced list). Thread-safe: interning takes a lock, reading needs none.
class ApDims {
 public:
  ApDims();  // no dims
  ApDims(std::initializer_list<ApDim> dims);
  ApDims(const std::vector<ApDim>& dims);  // NOLINT(google-explicit-constructor): stands in for the vector

  size_t size() const { return static_cast<size_t>(rep_->size); }
  bool empty() const { return rep_->size == 0; }
  const ApDim* begin() const { return reinterpret_cast<const ApDim*>(rep_ + 1); }
  const ApDim* end() const { return begin() + size(); }
  const ApDim& operator[](size_t i) const { return begin()[i]; }
  const ApDim& front() const { return begin()[0]; }
  const ApDim& back() const { return end()[-1]; }
  std::vector<ApDim> vector() const { return {begin(), end()}; }
  // This list with dim i replaced by `d`.
  ApDims With(size_t i, ApDim d) const;

  // Interned: equal lists are one copy.
  friend bool operator==(const ApDims& a, const ApDims& b) { return a.rep_ == b.rep_; }
  friend bool operator!=(const ApDims& a, const ApDims& b) { return a.rep_ != b.rep_; }

  // The dims follow their Rep in the same allocation.
  struct alignas(alignof(ApDim)) Rep {
    uint64_t size;
  };

 private:
  static const Rep* Intern(const ApDim* dims, size_t n);
  const Rep* rep_;
};

}  // namespace nsim
