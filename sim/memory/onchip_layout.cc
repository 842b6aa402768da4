#include "sim/memory/onchip_layout.h"

namespace nsim {
namespace {

int64_t AlignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

}  // namespace

int64_t OnChipLayout::Place(MemSpace space, int64_t bytes) {
  if (space == MemSpace::kSbuf) {
    const int64_t at = sbuf_used_;
    sbuf_used_ = AlignUp(at + bytes, kSbufAlignment);
    return at;
  }
  int64_t at = psum_used_;
  if (bytes > bank_ || at / bank_ != (at + bytes - 1) / bank_) at = AlignUp(at, bank_);
  psum_used_ = AlignUp(at + bytes, 4);
  return at;
}

OnChipLayout LayOut(const Kernel& kernel, int64_t psum_bank_bytes) {
  OnChipLayout layout(psum_bank_bytes);
  for (const TensorDecl& t : kernel.tensors) {
    if (t.space != MemSpace::kHbm) layout.Place(t.space, BytesPerPartition(t));
  }
  return layout;
}

}  // namespace nsim
