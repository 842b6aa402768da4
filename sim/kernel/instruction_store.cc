#include <cstring>

#include "sim/base/error.h"
#include "sim/base/word_hash.h"
#include "sim/kernel/ap_cache.h"
#include "sim/kernel/kernel.h"

namespace nsim {

const AccessPattern InstructionStore::kNoAp{};
const Scalar InstructionStore::kNoScalar{};

namespace {

uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
// Interning keeps an exact copy: -0.0, NaN payloads and an unused ap included.
bool Identical(const Scalar& a, const Scalar& b) {
  return a.is_ap == b.is_ap && Bits(a.imm) == Bits(b.imm) && a.ap == b.ap;
}
bool IsDefault(const Scalar& s) { return Identical(s, InstructionStore::kNoScalar); }
uint64_t HashScalar(const Scalar& s) { return WordHash().Mix(HashAccessPattern(s.ap)).Mix(Bits(s.imm)).Mix(s.is_ap).value(); }

uint32_t Index(size_t n) {
  if (n > UINT32_MAX) throw SimError("kernel too large: more than 2^32 pooled instruction fields");
  return static_cast<uint32_t>(n);
}

}  // namespace

size_t InstructionStore::total() const {
  size_t n = 0;
  for (const auto& s : streams_) n += s.size();
  return n;
}

uint32_t InstructionStore::InternAp(const AccessPattern& ap) {
  return aps_.Intern(ap, HashAccessPattern(ap), [&](const AccessPattern& a) { return a == ap; });
}

uint32_t InstructionStore::InternScalar(const Scalar& s) {
  return scalars_.Intern(s, HashScalar(s), [&](const Scalar& t) { return Identical(t, s); });
}

// Appends the semaphore words of `in` (after its other words): for waits and
// then signals, when there are any, the count if it is kManySems or more and
// the first index in the pool.
void InstructionStore::PushSems(const Instruction& in, uint8_t* num_waits, uint8_t* num_signals) {
  auto push = [this](size_t n, uint32_t first, uint8_t* count) {
    if (n == 0) return;
    *count = n < kManySems ? static_cast<uint8_t>(n) : kManySems;
    if (n >= kManySems) words_.push_back(Index(n));
    words_.push_back(first);
  };
  const uint32_t w = Index(waits_.size()), s = Index(signals_.size());
  waits_.insert(waits_.end(), in.waits.begin(), in.waits.end());
  signals_.insert(signals_.end(), in.signals.begin(), in.signals.end());
  *num_waits = *num_signals = 0;
  push(in.waits.size(), w, num_waits);
  push(in.signals.size(), s, num_signals);
}

InstructionStore::Header InstructionStore::Pack(const Instruction& in) {
  Header h{in.engine, in.opcode, in.alu0, in.alu1, in.reduce, in.func, 0, 0, 0, in.line, Index(words_.size())};
  auto ap = [&](const AccessPattern& a, Field f) {
    if (a == kNoAp) return;
    h.fields |= f;
    words_.push_back(InternAp(a));
  };
  ap(in.dst, kDst);
  ap(in.src0, kSrc0);
  ap(in.src1, kSrc1);
  ap(in.acc, kAcc);
  for (const auto& [s, f] : {std::make_pair(&in.scalar0, kScalar0), std::make_pair(&in.scalar1, kScalar1)}) {
    if (IsDefault(*s)) continue;
    h.fields |= f;
    words_.push_back(InternScalar(*s));
  }
  if (in.queue != 0) {
    h.fields |= kQueue;
    words_.push_back(static_cast<uint32_t>(in.queue));
  }
  if ((Bits(in.base) | Bits(in.partition_step) | Bits(in.free_step)) != 0) {
    h.fields |= kIota;
    words_.push_back(Index(iotas_.size()));
    iotas_.push_back({in.base, in.partition_step, in.free_step});
  }
  if (in.accumulate) h.fields |= kAccumulate;
  if (in.broadcast) h.fields |= kBroadcast;
  if (in.negate) h.fields |= kNegate;
  PushSems(in, &h.num_waits, &h.num_signals);
  return h;
}

void InstructionStore::Append(int engine, const Instruction& in) {
  if (engine < 0 || engine >= kNumEngines) throw SimError("instruction stream of an unknown engine");
  streams_[engine].push_back(Pack(in));
}

void InstructionStore::Insert(int engine, size_t i, const Instruction& in) {
  auto& stream = streams_[engine];
  stream.insert(stream.begin() + static_cast<std::ptrdiff_t>(i), Pack(in));
}

void InstructionStore::Replace(int engine, size_t i, const Instruction& in) { streams_[engine][i] = Pack(in); }

InstructionView::InstructionView(const Instruction& in)
    : InstructionView(in.engine, in.opcode, in.line, in.dst, in.src0, in.src1, in.acc, in.scalar0, in.scalar1) {
  alu0 = in.alu0;
  alu1 = in.alu1;
  reduce = in.reduce;
  func = in.func;
  accumulate = in.accumulate;
  broadcast = in.broadcast;
  negate = in.negate;
  base = in.base;
  partition_step = in.partition_step;
  free_step = in.free_step;
  queue = in.queue;
  waits = in.waits;
  signals = in.signals;
}

Instruction InstructionView::ToInstruction() const {
  Instruction in;
  in.engine = engine;
  in.opcode = opcode;
  in.line = line;
  in.dst = dst;
  in.src0 = src0;
  in.src1 = src1;
  in.acc = acc;
  in.scalar0 = scalar0;
  in.scalar1 = scalar1;
  in.alu0 = alu0;
  in.alu1 = alu1;
  in.reduce = reduce;
  in.func = func;
  in.accumulate = accumulate;
  in.broadcast = broadcast;
  in.negate = negate;
  in.base = base;
  in.partition_step = partition_step;
  in.free_step = free_step;
  in.queue = queue;
  in.waits.assign(waits.begin(), waits.end());
  in.signals.assign(signals.begin(), signals.end());
  return in;
}

}  // namespace nsim
