#include "sim/memory/onchip_layout.h"

#include <algorithm>

namespace nsim {
namespace {

int64_t AlignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

}  // namespace

int64_t OnChipLayout::Place(MemSpace space, int64_t bytes, int64_t at) {
  if (at >= 0) {
    int64_t& used = space == MemSpace::kSbuf ? sbuf_used_ : psum_used_;
    used = std::max(used, AlignUp(at + bytes, space == MemSpace::kSbuf ? kSbufAlignment : 4));
    return at;
  }
  if (space == MemSpace::kSbuf) {
    const int64_t next = sbuf_used_;
    sbuf_used_ = AlignUp(next + bytes, kSbufAlignment);
    return next;
  }
  int64_t next = psum_used_;
  if (bytes > bank_ || next / bank_ != (next + bytes - 1) / bank_) next = AlignUp(next, bank_);
  psum_used_ = AlignUp(next + bytes, 4);
  return next;
}

OnChipLayout LayOut(const Kernel& kernel, int64_t psum_bank_bytes) {
  OnChipLayout layout(psum_bank_bytes);
  for (const TensorDecl& t : kernel.tensors) {
    if (t.space != MemSpace::kHbm) layout.Place(t.space, BytesPerPartition(t), t.at);
  }
  return layout;
}

}  // namespace nsim
