#pragma once
// RecordMerger: one core's instruction records, put into the canonical order
// (record_order.h: by start, engine, index) while the engines issue them, so
// that SortRecords finds them in order instead of sorting them (issue 12:
// the sort was ~6 % of a tiny-tile run's instructions).
//
// Each engine issues in order of start (an instruction starts no earlier
// than the one before it on its engine), so its records arrive as a sorted
// run. The merger queues each engine's run and moves records into the result
// as soon as no engine can still issue one that starts earlier: an engine
// stopped at a semaphore wait issues next no earlier than its own clock and
// no earlier than when it is woken (>= SystemC's time now); a finished one
// issues nothing. Only the records ahead of that watermark are queued (how
// far the engines run ahead), and every record is stored once.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "sim/base/time.h"
#include "sim/model/execution_result.h"

namespace nsim {

class RecordMerger {
 public:
  // Merges into `out` (kept); `active[e]`: engine e has instructions to
  // issue, none before `first_start` (times relative to the execution's start,
  // as the records').
  void Reset(std::vector<InstructionRecord>* out, const std::array<bool, kNumEngines>& active, Picos first_start) {
    out_ = out;
    added_ = 0;
    flushed_to_ = INT64_MIN;
    added_at_flush_ = 0;
    for (int e = 0; e < kNumEngines; ++e) {
      queues_[e].clear();
      heads_[e] = 0;
      clock_[e] = active[e] ? first_start : kFinished;
    }
  }
  void Add(const InstructionRecord& r) {
    queues_[static_cast<int>(r.engine)].push_back(r);
    ++added_;
  }
  // The engine stopped at a semaphore wait with its clock at `clock` at time
  // `now`: it issues nothing that starts before either. Records are moved a
  // batch at a time (a merge per stop would cost more than the sort did).
  void Stopped(EngineId e, Picos clock, Picos now) {
    clock_[static_cast<int>(e)] = clock;
    if (added_ - added_at_flush_ < kBatch) return;
    Flush(std::max(now, *std::min_element(clock_.begin(), clock_.end())));
  }
  // The engine issued its last record (or the run was aborted); after the
  // last engine, every record is in out_.
  void Finished(EngineId e, Picos now) {
    clock_[static_cast<int>(e)] = kFinished;
    const Picos earliest = *std::min_element(clock_.begin(), clock_.end());
    if (earliest == kFinished || added_ - added_at_flush_ >= kBatch) {
      Flush(std::max(now, earliest));
    }
  }
  int64_t size() const { return added_; }  // records added so far, merged or queued

 private:
  static constexpr Picos kFinished = INT64_MAX;
  static constexpr int64_t kBatch = 512;  // records added between two merges

  // Moves every queued record that starts before `watermark` into out_, in
  // the canonical order.
  void Flush(Picos watermark) {
    // Every record queued starts at or after the last watermark (the earlier
    // ones were moved, later ones cannot start before it).
    added_at_flush_ = added_;
    if (watermark <= flushed_to_) return;
    flushed_to_ = watermark;
    // One pass: each queue's next record and its start (kFinished past the
    // end; no record starts there, every one before the watermark is earlier).
    std::array<const InstructionRecord*, kNumEngines> next, end;
    std::array<Picos, kNumEngines> head;
    for (int e = 0; e < kNumEngines; ++e) {
      next[e] = queues_[e].data() + heads_[e];
      end[e] = queues_[e].data() + queues_[e].size();
      head[e] = next[e] != end[e] ? next[e]->start : kFinished;
    }
    while (true) {
      int best = 0;
      for (int e = 1; e < kNumEngines; ++e) best = head[e] < head[best] ? e : best;  // lowest engine among ties
      if (head[best] >= watermark) break;
      out_->push_back(*next[best]++);
      head[best] = next[best] != end[best] ? next[best]->start : kFinished;
    }
    for (int e = 0; e < kNumEngines; ++e) heads_[e] = static_cast<size_t>(next[e] - queues_[e].data());
    for (int e = 0; e < kNumEngines; ++e) Compact(e);
  }
  // Drops the merged front of a queue once it is most of it.
  void Compact(int e) {
    std::vector<InstructionRecord>& q = queues_[e];
    if (heads_[e] == q.size()) {
      q.clear();
      heads_[e] = 0;
    } else if (heads_[e] >= 64 && heads_[e] * 2 >= q.size()) {
      q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(heads_[e]));
      heads_[e] = 0;
    }
  }

  std::vector<InstructionRecord>* out_ = nullptr;
  std::array<std::vector<InstructionRecord>, kNumEngines> queues_;
  std::array<size_t, kNumEngines> heads_{};  // first record of each queue not merged yet
  std::array<Picos, kNumEngines> clock_{};   // no record of the engine starts earlier from now on
  Picos flushed_to_ = INT64_MIN;              // the last watermark
  int64_t added_ = 0;
  int64_t added_at_flush_ = 0;  // added_ at the last merge
};

}  // namespace nsim
