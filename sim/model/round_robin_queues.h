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
  // Takes the head of the next ready queue in round-robin order into `*out`;
  // false if no head is ready by `now`.
  bool PopReady(Picos now, Item* out) {
    const int n = queues_in_use_;
    int q = NextReady(round_robin_, n, now);
    if (q < 0 && round_robin_ > 0) q = NextReady(0, round_robin_, now);
    if (q < 0) return false;
    round_robin_ = (q + 1) % n;
    *out = queues_[q].front();
    queues_[q].pop_front();
    if (queues_[q].empty()) nonempty_[q / 64] &= ~(uint64_t{1} << (q % 64));
    return true;
  }
  // When the earliest head becomes ready, -1 if every queue is empty.
  Picos EarliestReady() const {
    Picos t = -1;
    for (int w = 0; w < kWords; ++w) {
      for (uint64_t bits = nonempty_[w]; bits != 0; bits &= bits - 1) {
        const Picos ready = queues_[w * 64 + __builtin_ctzll(bits)].front().ready;
        if (t < 0 || ready < t) t = ready;
      }
    }
    return t;
  }

 private:
  static constexpr int kWords = (kMaxQueues + 63) / 64;
  // The first queue in [from, to) that is non-empty with a head ready by `now`, or -1.
  int NextReady(int from, int to, Picos now) const {
    for (int w = from / 64; w * 64 < to; ++w) {
      uint64_t bits = nonempty_[w];
      if (w == from / 64) bits &= ~uint64_t{0} << (from % 64);
      while (bits != 0) {
        const int q = w * 64 + __builtin_ctzll(bits);
        if (q >= to) return -1;
        if (queues_[q].front().ready <= now) return q;
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
