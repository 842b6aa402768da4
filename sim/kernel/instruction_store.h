#pragma once
// How a Kernel holds its instructions (issue 12: at most 300 bytes per
// instruction resident for a million-instruction kernel). A fat Instruction
// is over 400 bytes plus a heap vector per operand and per semaphore list,
// though most instructions use two or three operands and a long kernel walks
// the same few dozen tiles again and again. So each stream is a vector of
// 20-byte headers (engine, opcode, enums, flags saying which fields are set,
// line, semaphore counts) and one index into a kernel-wide pool of 32-bit
// words that holds, in a fixed order, only the fields an instruction sets:
// interned access patterns and scalars (kept once each, at stable
// addresses), the queue, an iota's parameters, and where its waits and
// signals start in their pools. Reading builds an InstructionView into the
// pools: no heap allocation per instruction.
//
// Include sim/kernel/kernel.h, not this file.
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "sim/kernel/interned_pool.h"
#include "sim/kernel/instruction.h"

namespace nsim {

class InstructionStore;

// One engine's stream as views: indexable and iterable (each element is a
// view built on access).
class StreamView {
 public:
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = InstructionView;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = InstructionView;
    Iterator(const InstructionStore* store, int engine, size_t i) : store_(store), engine_(engine), i_(i) {}
    InstructionView operator*() const;
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    const InstructionStore* store_;
    int engine_;
    size_t i_;
  };
  StreamView(const InstructionStore* store, int engine) : store_(store), engine_(engine) {}
  size_t size() const;
  bool empty() const { return size() == 0; }
  InstructionView operator[](size_t i) const;
  InstructionView back() const { return (*this)[size() - 1]; }
  Iterator begin() const { return Iterator(store_, engine_, 0); }
  Iterator end() const { return Iterator(store_, engine_, size()); }

 private:
  const InstructionStore* store_;
  int engine_;
};

class InstructionStore {
 public:
  // What a field that is not set reads as: the fat Instruction's defaults.
  static const AccessPattern kNoAp;
  static const Scalar kNoScalar;

  // A copy points at its own pools (InternedPool); a move keeps them.

  size_t size(int engine) const { return streams_[engine].size(); }
  size_t total() const;
  InstructionView Get(int engine, size_t i) const;
  // Packs `in` at the end of stream `engine` (normally in.engine; CheckInstruction
  // rejects a mismatch). Throws SimError when the engine is not an EngineId.
  void Append(int engine, const Instruction& in);
  // Packs `in` in place of instruction i (the old copy's pool entries stay, unused).
  void Replace(int engine, size_t i, const Instruction& in);
  void PopBack(int engine) { streams_[engine].pop_back(); }
  void Insert(int engine, size_t i, const Instruction& in);
  const SemWait* wait_pool() const { return waits_.data(); }
  const SemSignal* signal_pool() const { return signals_.data(); }

 private:
  // The fields a header says are set, in the order their words follow.
  enum Field : uint16_t {
    kDst = 1 << 0,
    kSrc0 = 1 << 1,
    kSrc1 = 1 << 2,
    kAcc = 1 << 3,
    kScalar0 = 1 << 4,
    kScalar1 = 1 << 5,
    kQueue = 1 << 6,
    kIota = 1 << 7,
    kAccumulate = 1 << 8,  // flags without words
    kBroadcast = 1 << 9,
    kNegate = 1 << 10,
  };
  static constexpr uint8_t kManySems = 255;  // a count this large or more is a word of its own

  struct Header {
    EngineId engine;
    Opcode opcode;
    AluOp alu0, alu1;
    ReduceOp reduce;
    ActFunc func;
    uint8_t num_waits, num_signals;  // kManySems: the count is a word of its own
    uint16_t fields;                 // a bit per Field set
    int32_t line;
    uint32_t words;                  // its first word in words_
  };
  Header Pack(const Instruction& in);
  uint32_t InternAp(const AccessPattern& ap);
  uint32_t InternScalar(const Scalar& s);
  void PushSems(const Instruction& in, uint8_t* num_waits, uint8_t* num_signals);

  std::array<std::vector<Header>, kNumEngines> streams_;
  std::vector<uint32_t> words_;
  // Interned at stable addresses (PreBound finds operands by address), each
  // looked up in one load (Get is on the per-instruction path).
  InternedPool<AccessPattern> aps_;
  InternedPool<Scalar> scalars_;
  std::vector<std::array<double, 3>> iotas_;  // base, partition_step, free_step
  std::vector<SemWait> waits_;
  std::vector<SemSignal> signals_;
};

// Inline: on the per-instruction path of the engines, the DMA model and the
// race detector.
__attribute__((always_inline)) inline InstructionView InstructionStore::Get(int engine, size_t i) const {
  const Header& h = streams_[engine][i];
  const uint16_t f = h.fields;
  const uint32_t* w = words_.data() + h.words;
  // Evaluated in the words' order.
  const AccessPattern& dst = f & kDst ? aps_[*w++] : kNoAp;
  const AccessPattern& src0 = f & kSrc0 ? aps_[*w++] : kNoAp;
  const AccessPattern& src1 = f & kSrc1 ? aps_[*w++] : kNoAp;
  const AccessPattern& acc = f & kAcc ? aps_[*w++] : kNoAp;
  const Scalar& scalar0 = f & kScalar0 ? scalars_[*w++] : kNoScalar;
  const Scalar& scalar1 = f & kScalar1 ? scalars_[*w++] : kNoScalar;
  InstructionView v(h.engine, h.opcode, h.line, dst, src0, src1, acc, scalar0, scalar1);
  v.alu0 = h.alu0;
  v.alu1 = h.alu1;
  v.reduce = h.reduce;
  v.func = h.func;
  v.accumulate = (f & kAccumulate) != 0;
  v.broadcast = (f & kBroadcast) != 0;
  v.negate = (f & kNegate) != 0;
  v.queue = f & kQueue ? static_cast<int>(*w++) : 0;
  if (f & kIota) {
    const std::array<double, 3>& iota = iotas_[*w++];
    v.base = iota[0];
    v.partition_step = iota[1];
    v.free_step = iota[2];
  } else {
    v.base = v.partition_step = v.free_step = 0;
  }
  size_t n = h.num_waits == kManySems ? *w++ : h.num_waits;
  v.waits = Span<SemWait>(n != 0 ? waits_.data() + *w++ : nullptr, n);
  n = h.num_signals == kManySems ? *w++ : h.num_signals;
  v.signals = Span<SemSignal>(n != 0 ? signals_.data() + *w++ : nullptr, n);
  return v;
}

inline size_t StreamView::size() const { return store_->size(engine_); }
inline InstructionView StreamView::operator[](size_t i) const { return store_->Get(engine_, i); }
inline InstructionView StreamView::Iterator::operator*() const { return store_->Get(engine_, i_); }

}  // namespace nsim
