#include "sim/model/interval_set.h"

namespace nsim {

void IntervalSet::Grow() { blocks_.resize(std::max<size_t>(64, 2 * blocks_.size())); }

// The blocks [start, end) touches (a block's end >= start and its start <=
// end) are consecutive; in order of end they are the last few, so the search
// starts from the back.
void IntervalSet::Insert(Picos start, Picos end) {
  constexpr size_t kScan = 8;  // blocks looked at from the back before a binary search
  const auto first_block = blocks_.begin();
  size_t last = size_;  // one past the last block that starts at or before `end`
  while (last > 0 && size_ - last < kScan && blocks_[last - 1].first > end) --last;
  if (last > 0 && blocks_[last - 1].first > end) {  // far from the back
    last = static_cast<size_t>(std::upper_bound(first_block, first_block + static_cast<long>(last), end,
                                                [](Picos t, const Block& b) { return t < b.first; }) -
                               first_block);
  }
  size_t first = last;  // the first block that ends at or after `start`
  while (first > 0 && blocks_[first - 1].second >= start) --first;
  if (first == last) {  // touches none: a block of its own, the ones after it move up
    if (size_ == blocks_.size()) Grow();
    std::move_backward(blocks_.begin() + static_cast<long>(first), blocks_.begin() + static_cast<long>(size_),
                       blocks_.begin() + static_cast<long>(size_ + 1));
    blocks_[first] = Block{start, end};
    ++size_;
    length_ += end - start;
    return;
  }
  // Blocks [first, last) become one.
  Block merged{std::min(start, blocks_[first].first), std::max(end, blocks_[last - 1].second)};
  for (size_t i = first; i < last; ++i) length_ -= blocks_[i].second - blocks_[i].first;
  length_ += merged.second - merged.first;
  blocks_[first] = merged;
  std::move(blocks_.begin() + static_cast<long>(last), blocks_.begin() + static_cast<long>(size_),
            blocks_.begin() + static_cast<long>(first + 1));
  size_ -= last - first - 1;
}

}  // namespace nsim
