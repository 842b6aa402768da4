#pragma once
// A growable scratch array for the files built with host-specific vector
// flags (-mavx2, -mavx512*; sim/isa/gemm*.cc). It has internal linkage in
// every file that includes it, and all of it is inline here. A std::vector
// there would emit its out-of-line members (_M_default_append, ...) as weak
// symbols compiled for that ISA, and the linker may keep those copies for the
// whole program: a host without the ISA could then fault in unrelated code
// that grows a vector of the same type.
#include <cstddef>
#include <cstdlib>
#include <new>

namespace nsim {
namespace {  // NOLINT: internal linkage per including file is the point

template <class T>
class LocalBuffer {
 public:
  LocalBuffer() = default;
  LocalBuffer(const LocalBuffer&) = delete;
  LocalBuffer& operator=(const LocalBuffer&) = delete;
  ~LocalBuffer() { std::free(data_); }
  // At least n elements; the contents are unspecified after growing (every
  // caller writes before it reads).
  void resize(size_t n) {
    if (n <= capacity_) return;
    std::free(data_);
    data_ = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (data_ == nullptr) {
      capacity_ = 0;
      throw std::bad_alloc();
    }
    capacity_ = n;
  }
  T* data() { return data_; }
  const T* data() const { return data_; }

 private:
  T* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace
}  // namespace nsim
