#include "backend/cpu/elementwise_iter.h"

namespace nsim {
namespace at {

void ElementwiseIter::Add(void* data, const IntList& sizes, const IntList& strides,
                          int64_t element_size) {
  if (n_ == kMaxOperands) throw SimError("ElementwiseIter: too many operands");
  const int64_t nd = static_cast<int64_t>(shape_.size());
  const int64_t offset = nd - static_cast<int64_t>(sizes.size());
  if (offset < 0) throw SimError("ElementwiseIter: operand has more dims than the iteration shape");
  IntList& s = strides_[n_];
  s.assign(nd, 0);
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    // A size-1 dim broadcasts (stride 0); otherwise sizes must agree.
    if (sizes[d] == shape_[offset + d]) s[offset + d] = strides[d] * element_size;
    else if (sizes[d] != 1) throw SimError("ElementwiseIter: operand does not broadcast");
  }
  base_[n_++] = static_cast<char*>(data);
}

}  // namespace at
}  // namespace nsim
