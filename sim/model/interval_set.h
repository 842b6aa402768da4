#pragma once
// The union of [start, end) intervals, built as the intervals come, without
// a sort. An execution's records are in order of start (SortRecords); the
// DMA module's union of pieces it does not record (dma_activity) is built as
// they complete, in order of end.
// - RunningUnion: intervals in order of start; keeps only the open block.
// - IntervalSet: any order; keeps the sorted disjoint blocks. In order of
//   start or of end only the last blocks change (amortised O(1) per
//   interval); other orders insert in the middle.
// Both give exactly the union MergeIntervals gives: touching intervals merge,
// empty ones are dropped.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/base/time.h"

namespace nsim {

class RunningUnion {
 public:
  // `start` is at or after the start of every interval added before.
  void Add(Picos start, Picos end) {
    if (end <= start) return;
    if (start > end_) {  // after the open block: close it
      closed_ += end_ - start_;
      start_ = start;
      end_ = end;
    } else if (end > end_) {
      end_ = end;
    }
  }
  Picos Length() const { return closed_ + (end_ - start_); }

 private:
  Picos closed_ = 0;
  Picos start_ = INT64_MIN, end_ = INT64_MIN;  // the open block; empty at first
};

class IntervalSet {
 public:
  using Block = std::pair<Picos, Picos>;

  void Add(Picos start, Picos end) {
    if (end <= start) return;
    if (size_ == 0 || start > blocks_[size_ - 1].second) {  // after every block
      if (__builtin_expect(size_ == blocks_.size(), 0)) Grow();
      blocks_[size_++] = Block{start, end};
      length_ += end - start;
    } else if (start >= blocks_[size_ - 1].first) {  // in order of start: only the last block grows
      Picos& last_end = blocks_[size_ - 1].second;
      if (end > last_end) {
        length_ += end - last_end;
        last_end = end;
      }
    } else {
      Insert(start, end);
    }
  }
  // Total length of the union.
  Picos Length() const { return length_; }
  // The disjoint blocks, in order.
  const Block* begin() const { return blocks_.data(); }
  const Block* end() const { return blocks_.data() + size_; }
  size_t size() const { return size_; }

 private:
  void Grow();  // more room at the back (interval_set.cc)
  // [start, end) begins before the last block: it merges the blocks it
  // touches into one (interval_set.cc).
  void Insert(Picos start, Picos end);

  std::vector<Block> blocks_;  // [0, size_) in use; the rest is room to grow
  size_t size_ = 0;
  Picos length_ = 0;
};

}  // namespace nsim
