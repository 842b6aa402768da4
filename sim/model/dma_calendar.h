#pragma once
// DmaCalendar: when each engine of one DMA module next has to act (its piece
// ends, or the earliest head of its queues becomes ready), so that ONE
// SystemC process serves all of the module's engines and is woken once per
// distinct time instead of once per engine and piece (issue 12).
//
// An engine has at most one entry. Entries due at the same picosecond are
// taken lowest engine first; the order matters to nothing the model reports
// (records are sorted canonically, each engine's picks depend only on its own
// queues), but it keeps every run of a kernel the same.
//
// Engines mostly act together (the pieces of one transfer), so the earliest
// time and the set of engines due then are kept, and the entries are scanned
// again only once that set has been taken or moved.
#include <array>
#include <cstdint>

#include "sim/base/time.h"

namespace nsim {

template <int kMaxEngines>
class DmaCalendar {
  static_assert(kMaxEngines <= 64, "one bit per engine");

 public:
  void Reset(int engines) {
    engines_ = engines;
    due_.fill(-1);
    next_ = -1;
    at_next_ = 0;
    stale_ = false;
  }
  Picos due(int engine) const { return due_[engine]; }
  // Gives the engine the entry `at` (>= 0), replacing its entry if any.
  void Set(int engine, Picos at) {
    const Picos old = due_[engine];
    due_[engine] = at;
    if (stale_) return;
    if (old >= 0 && old == next_) at_next_ &= ~Bit(engine);
    if (next_ < 0 || at < next_) {
      next_ = at;
      at_next_ = Bit(engine);
    } else if (at == next_) {
      at_next_ |= Bit(engine);
    } else if (at_next_ == 0) {
      stale_ = true;  // it was alone at the earliest time, and moved later
    }
  }
  // Moves the engine's entry to `at` if it has none or a later one.
  void Lower(int engine, Picos at) {
    if (due_[engine] < 0 || at < due_[engine]) Set(engine, at);
  }
  // The earliest entry, -1 if none.
  Picos Next() {
    if (stale_) Rescan();
    return next_;
  }
  // Removes and returns the engine of the earliest entry due by `now`
  // (lowest engine among equal times), or -1 if none is due.
  int PopDue(Picos now) {
    if (Next() < 0 || next_ > now) return -1;
    const int engine = __builtin_ctzll(at_next_);
    at_next_ &= at_next_ - 1;
    due_[engine] = -1;
    if (at_next_ == 0) stale_ = true;
    return engine;
  }

 private:
  static uint64_t Bit(int engine) { return uint64_t{1} << engine; }
  void Rescan() {
    next_ = -1;
    at_next_ = 0;
    for (int e = 0; e < engines_; ++e) {
      if (due_[e] < 0) continue;
      if (next_ < 0 || due_[e] < next_) {
        next_ = due_[e];
        at_next_ = Bit(e);
      } else if (due_[e] == next_) {
        at_next_ |= Bit(e);
      }
    }
    stale_ = false;
  }

  int engines_ = 0;
  std::array<Picos, kMaxEngines> due_{};
  Picos next_ = -1;       // the earliest entry (unless stale_)
  uint64_t at_next_ = 0;  // the engines due at next_ (unless stale_)
  bool stale_ = false;    // next_ and at_next_ must be found again
};

}  // namespace nsim
