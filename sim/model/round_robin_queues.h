#pragma once
// RoundRobinQueues: the FIFO queues one DMA engine serves (S8, v2/v3), and
// its choice among them: the first non-empty queue at or after the
// round-robin position (wrapping) whose head is ready by now. Only non-empty
// queues are visited (a bit each). `Item` has a `Picos ready`.
#include <array>
#include <cstdint>

#include "sim/base/time.h"
#include "sim/model/lazy_fifo.h"

namespace nsim {

template <class Item, int kMaxQueues>
class RoundRobinQueues {
 public:
  void Reset(int queues_in_use) {
    for (auto& q : queues_) q.clear();
    nonempty_.fill(0);
    round_robin_ = 0;
    queues_in_use_ = queues_in_use;
  }
  void Push(int queue, const Item& item) {
    queues_[queue].push_back(item);
    nonempty_[queue / 64] |= uint64_t{1} << (queue % 64);
  }
  // The round-robin position, to undo a pick with PutBack.
  int turn() const { return round_robin_; }
  // Undoes the pick of `item` from `queue` made at round-robin position `turn`.
  void PutBack(int queue, const Item& item, int turn) {
    queues_[queue].push_front(item);
    nonempty_[queue / 64] |= uint64_t{1} << (queue % 64);
    round_robin_ = turn;
  }
  // Takes the head of the next ready queue in round-robin order into `*out`;
  // false if no head is ready by `now`, with `*earliest` set to when the
  // first one becomes ready (-1: every queue is empty).
  bool PopReady(Picos now, Item* out, Picos* earliest) {
    const int n = queues_in_use_;
    *earliest = -1;
    int q = NextReady(round_robin_, n, now, earliest);
    if (q < 0 && round_robin_ > 0) q = NextReady(0, round_robin_, now, earliest);
    if (q < 0) return false;  // every non-empty queue was visited
    Take(q, out);
    return true;
  }
  // Takes the head of `queue` as the pick of that queue (the turn passes it).
  void Take(int queue, Item* out) {
    round_robin_ = (queue + 1) % queues_in_use_;
    *out = queues_[queue].front();
    queues_[queue].pop_front();
    if (queues_[queue].empty()) nonempty_[queue / 64] &= ~(uint64_t{1} << (queue % 64));
  }

 private:
  static constexpr int kWords = (kMaxQueues + 63) / 64;
  // The first queue in [from, to) that is non-empty with a head ready by
  // `now`, or -1; `*earliest` is lowered to the heads it passes.
  int NextReady(int from, int to, Picos now, Picos* earliest) const {
    for (int w = from / 64; w * 64 < to; ++w) {
      uint64_t bits = nonempty_[w];
      if (w == from / 64) bits &= ~uint64_t{0} << (from % 64);
      while (bits != 0) {
        const int q = w * 64 + __builtin_ctzll(bits);
        if (q >= to) return -1;
        const Picos ready = queues_[q].front().ready;
        if (ready <= now) return q;
        if (*earliest < 0 || ready < *earliest) *earliest = ready;
        bits &= bits - 1;
      }
    }
    return -1;
  }

  LazyFifo<Item> queues_[kMaxQueues];  // no allocation until used
  std::array<uint64_t, kWords> nonempty_{};  // bit q: queues_[q] is not empty
  int round_robin_ = 0;
  int queues_in_use_ = 0;
};

}  // namespace nsim
