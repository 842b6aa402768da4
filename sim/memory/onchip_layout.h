#pragma once
// The one rule for where a kernel's SBUF and PSUM tensors sit in a
// partition, in declaration order. The loader places tensors with it
// (sim/model/loaded_kernel.cc), the code generator checks its kernels fit
// with it (backend/neuron/codegen/generate.cc), and the NKI frontend reads it
// through the extension (python/core/module.cc `onchip_layout`).
//   SBUF: each tensor at the next 64 B boundary.
//   PSUM: packed at 4 B; a tensor that fits a bank never straddles two
//         (a matmul writes one bank), a larger one starts at a bank.
//   at=N (TensorDecl::at): at N, as the kernel's own allocation chose; a
//         tensor after it without at= goes after its end.
#include <cstdint>

#include "sim/kernel/kernel.h"

namespace nsim {

class OnChipLayout {
 public:
  static constexpr int64_t kSbufAlignment = 64;  // bytes; keeps tensors on port-friendly boundaries

  explicit OnChipLayout(int64_t psum_bank_bytes) : bank_(psum_bank_bytes) {}

  // The partition offset of the next tensor of `bytes` per partition in
  // `space` (kSbuf or kPsum), which it then occupies; `at` >= 0: the tensor's
  // own at= offset, and the next tensor goes after it too.
  int64_t Place(MemSpace space, int64_t bytes, int64_t at = -1);

  // Bytes per partition in use (the end of the last tensor, aligned).
  int64_t sbuf_used() const { return sbuf_used_; }
  int64_t psum_used() const { return psum_used_; }

 private:
  int64_t bank_;
  int64_t sbuf_used_ = 0, psum_used_ = 0;
};

// Bytes per partition of an on-chip tensor.
inline int64_t BytesPerPartition(const TensorDecl& t) { return t.FreeElements() * DTypeSize(t.dtype); }

// Every SBUF and PSUM tensor of `kernel` placed in order (HBM tensors skipped).
OnChipLayout LayOut(const Kernel& kernel, int64_t psum_bank_bytes);

}  // namespace nsim
