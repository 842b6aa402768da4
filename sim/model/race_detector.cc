#include "sim/model/race_detector.h"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "sim/base/error.h"
#include "sim/memory/access.h"
#include "sim/memory/onchip_layout.h"

namespace nsim {
namespace {

// Who performs an access: an engine (its instructions are ordered among
// themselves) or one DMA transfer.
struct Agent {
  int id = 0;  // 0..kNumEngines-1: engines; then one per dma_copy
  bool dma = false;
};

struct Access {
  Agent agent;
  bool write = false;
  const LoadedInstruction* li = nullptr;
  const AccessPattern* ap = nullptr;
  Region region;     // as the loader computed it (tensor-relative for HBM)
  bool anywhere = false;  // dma_indirect's indexed side: any element of its tensor (known only when it runs)
  int64_t lo = 0;    // on chip: byte offset in the partition; HBM: byte address
  int64_t hi = 0;
  Picos t0 = 0, t1 = 0;  // in flight, relative to the execution start
};

// Byte range of a region: on-chip offsets within a partition, HBM addresses.
std::pair<int64_t, int64_t> Bytes(const Kernel& k, const Region& r, const std::vector<uint64_t>& hbm_address) {
  if (r.space != MemSpace::kHbm) return {r.lo, r.hi};
  const int64_t es = DTypeSize(k.tensors[r.tensor].dtype);
  const int64_t base = static_cast<int64_t>(hbm_address[r.tensor]);
  return {base + r.lo * es, base + r.hi * es};
}

// An access as the sweep keeps it in flight: what the test in time needs.
// Its region (a full Access) is looked up only when an access of another
// agent overlaps it in time, one of the two writing.
struct InFlight {
  const LoadedInstruction* li = nullptr;
  const AccessPattern* ap = nullptr;
  Picos t0 = 0, t1 = 0;
  Agent agent;
  bool write = false;
  bool anywhere = false;  // Access::anywhere
  int located = -1;  // its Access in RaceSweep::located_, once looked up
};

// Whether two accesses by different agents, one of them writing, are in
// flight together: the cheap test, before their regions are looked at.
bool MayOverlapInTime(const InFlight& a, const InFlight& b) {
  if (a.agent.id == b.agent.id || (!a.write && !b.write)) return false;
  return a.t0 < b.t1 && b.t0 < a.t1;
}

// Whether the bounding boxes of two accesses overlap in memory.
bool BoxesOverlap(const Access& a, const Access& b) {
  if (a.region.space != b.region.space) return false;
  if (a.region.space != MemSpace::kHbm && (a.region.p1 <= b.region.p0 || b.region.p1 <= a.region.p0)) return false;
  return a.lo < b.hi && b.lo < a.hi;
}

// The byte ranges an access touches (within each partition on chip, the same
// for every partition; addresses in HBM), sorted and merged. Empty when there
// are too many to list: the bounding box then stands for them.
using Ranges = std::vector<std::pair<int64_t, int64_t>>;
Ranges ByteRanges(const Kernel& k, const Access& a, const std::vector<uint64_t>& hbm_address) {
  constexpr size_t kMaxRanges = 1 << 16;
  if (a.anywhere) return {};  // the bounding box (its whole tensor) stands for it
  const BoundAccess b = Bind(k, *a.ap, a.region.space == MemSpace::kHbm ? hbm_address[a.ap->tensor] : 0);
  const int64_t es = DTypeSize(b.dtype), base = static_cast<int64_t>(b.base);
  const bool contiguous_inner = b.dims.n > 0 && b.dims[b.dims.size() - 1].stride == 1;
  const int64_t runs = b.FreeCount() / (contiguous_inner ? b.dims[b.dims.size() - 1].size : 1);
  if (runs > static_cast<int64_t>(kMaxRanges)) return {};
  Ranges out;
  out.reserve(static_cast<size_t>(runs));
  ForEachRun(b.dims, [&](int64_t off, int64_t n) { out.emplace_back(base + off * es, base + (off + n) * es); });
  std::sort(out.begin(), out.end());
  Ranges merged;
  for (const auto& r : out) {
    if (!merged.empty() && r.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, r.second);
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

// The bytes two accesses share: [first, last) of the shared bytes and their
// count; count 0 when interleaved patterns only share a bounding box.
struct Shared {
  int64_t lo = 0, hi = 0, bytes = 0;
};
Shared SharedBytes(const Kernel& k, const Access& a, const Access& b, const std::vector<uint64_t>& hbm_address) {
  const Ranges ra = ByteRanges(k, a, hbm_address), rb = ByteRanges(k, b, hbm_address);
  if (ra.empty() || rb.empty()) {  // unlisted: the boxes' overlap
    const int64_t lo = std::max(a.lo, b.lo), hi = std::min(a.hi, b.hi);
    return {lo, hi, hi - lo};
  }
  Shared s;
  for (size_t i = 0, j = 0; i < ra.size() && j < rb.size();) {
    const int64_t lo = std::max(ra[i].first, rb[j].first), hi = std::min(ra[i].second, rb[j].second);
    if (lo < hi) {
      if (s.bytes == 0) s.lo = lo;
      s.hi = hi;
      s.bytes += hi - lo;
    }
    if (ra[i].second < rb[j].second) ++i; else ++j;
  }
  return s;
}

std::string Ns(Picos ps) {
  std::ostringstream os;
  os << static_cast<double>(ps) / 1000.0 << " ns";
  return os.str();
}

std::string Who(const Kernel& k, const Access& a) {
  const InstructionView in = k.instruction(a.li->engine, static_cast<size_t>(a.li->index));
  std::ostringstream os;
  if (a.agent.dma) {
    os << "the DMA transfer of " << EngineName(in.engine) << " " << OpcodeName(in.opcode);
  } else {
    os << EngineLaneName(in.engine) << " " << OpcodeName(in.opcode);
  }
  os << " (";
  if (in.line > 0) os << "line " << in.line << ", ";
  const std::string loop = k.LoopIndicesAt(static_cast<int>(in.engine), static_cast<size_t>(a.li->index));
  if (!loop.empty()) os << "iteration " << loop << ", ";
  os << EngineName(in.engine) << " instruction " << a.li->index;
  if (a.agent.dma) os << ", queue " << in.queue;
  os << ")";
  return os.str();
}

std::string What(const Kernel& k, const Access& a, const std::vector<uint64_t>& hbm_address) {
  const TensorDecl& t = k.tensors[a.region.tensor];
  std::ostringstream os;
  os << (a.write ? "writes " : "reads ") << MemSpaceName(t.space) << " tensor '" << t.name << "'";
  if (t.space == MemSpace::kHbm) {
    os << " bytes [" << a.lo - static_cast<int64_t>(hbm_address[a.region.tensor]) << ", "
       << a.hi - static_cast<int64_t>(hbm_address[a.region.tensor]) << ")";
  } else {
    os << " partitions [" << a.region.p0 << ", " << a.region.p1 << ") bytes [" << a.lo - t.partition_offset << ", "
       << a.hi - t.partition_offset << ")";
  }
  os << " from " << Ns(a.t0) << " to " << Ns(a.t1);
  return os.str();
}

// The overlap of two conflicting accesses, in the first one's tensor terms.
std::string Overlap(const Kernel& k, const Access& a, const Access& b, const Shared& shared) {
  const TensorDecl& t = k.tensors[a.region.tensor];
  std::ostringstream os;
  os << "overlap: " << shared.bytes << " bytes";
  if (t.space == MemSpace::kHbm) {
    os << " at HBM addresses [0x" << std::hex << shared.lo << ", 0x" << shared.hi << ")" << std::dec;
  } else {
    os << " per partition in partitions [" << std::max(a.region.p0, b.region.p0) << ", "
       << std::min(a.region.p1, b.region.p1) << "), within bytes [" << shared.lo - t.partition_offset << ", "
       << shared.hi - t.partition_offset << ") of '" << t.name << "'";
  }
  os << ", from " << Ns(std::max(a.t0, b.t0)) << " to " << Ns(std::min(a.t1, b.t1));
  return os.str();
}

Race Describe(const Kernel& k, const Access& a, const Access& b, const Shared& shared,
              const std::vector<uint64_t>& hbm_address) {
  // Name the later starter first: it is the access that should have waited
  // (on a tie, the reader: it sees the stale data).
  const bool a_late = a.t0 != b.t0 ? a.t0 > b.t0 : !a.write;
  const Access& late = a_late ? a : b;
  const Access& early = a_late ? b : a;
  Race r;
  r.start = std::max(a.t0, b.t0);
  r.end = std::min(a.t1, b.t1);
  r.description = "race in kernel '" + k.name + "': " + Who(k, late) + " " + What(k, late, hbm_address) +
                  " while " + Who(k, early) + " still " + What(k, early, hbm_address) + "; " +
                  Overlap(k, late, early, shared);
  return r;
}

// Which memory can be raced on at all. Tensors whose byte ranges overlap
// form one group: HBM tensors by their bound addresses, SBUF and PSUM tensors
// by their partition offsets (apart unless the kernel placed them on shared
// bytes with at=); every other tensor is its own group. A group can hold a
// race only when some agent writes it and at least two agents touch it; the
// others are skipped.
class RaceCandidates {
 public:
  RaceCandidates(const LoadedKernel& lk, const std::vector<uint64_t>& hbm_address) {
    const Kernel& k = lk.kernel();
    const size_t n = k.tensors.size();
    group_.resize(n);
    for (size_t t = 0; t < n; ++t) group_[t] = static_cast<int>(t);
    for (MemSpace space : {MemSpace::kHbm, MemSpace::kSbuf, MemSpace::kPsum}) GroupOverlapping(k, hbm_address, space);
    // Who touches each group: the loader counted it per tensor.
    std::vector<TensorAgents> agents(n);
    for (size_t t = 0; t < n; ++t) {
      const TensorAgents& a = lk.tensor_agents()[t];
      TensorAgents& g = agents[group_[t]];
      g.engines |= a.engines;
      g.transfers = std::min(g.transfers + a.transfers, 2);
      g.written = g.written || a.written;
    }
    candidate_group_.resize(n);
    for (size_t t = 0; t < n; ++t) candidate_group_[t] = agents[group_[t]].MayRace() ? group_[t] : -1;
  }
  // The group of the memory `ap` touches, or -1 when it is absent or not a candidate.
  int CandidateGroup(const AccessPattern& ap) const { return ap.present() ? candidate_group_[ap.tensor] : -1; }
  size_t groups() const { return group_.size(); }

 private:
  // Connected runs of the tensors of `space` by overlapping [start, start + bytes).
  void GroupOverlapping(const Kernel& k, const std::vector<uint64_t>& hbm_address, MemSpace space) {
    std::vector<std::pair<uint64_t, int>> placed;
    for (size_t t = 0; t < k.tensors.size(); ++t) {
      const TensorDecl& d = k.tensors[t];
      if (d.space != space) continue;
      placed.push_back({space == MemSpace::kHbm ? hbm_address[t] : static_cast<uint64_t>(d.partition_offset),
                        static_cast<int>(t)});
    }
    std::sort(placed.begin(), placed.end());
    uint64_t reach = 0;
    int group = -1;
    for (const auto& [start, t] : placed) {
      const TensorDecl& d = k.tensors[t];
      const uint64_t bytes =
          static_cast<uint64_t>(space == MemSpace::kHbm ? d.NumElements() * DTypeSize(d.dtype) : BytesPerPartition(d));
      if (group < 0 || start >= reach) group = t;  // starts a new run
      group_[t] = group;
      reach = std::max(reach, start + bytes);
    }
  }
  std::vector<int> group_;  // per tensor
  std::vector<int> candidate_group_;  // per tensor: its group if that is a candidate, else -1
};

// Sweeps the accesses of an execution in order of their start, keeping the
// ones still in flight per memory group (accesses to different groups never
// share a byte), and collects the races among them.
class RaceSweep {
 public:
  RaceSweep(const Kernel& k, const std::vector<uint64_t>& hbm_address, size_t groups)
      : k_(k), hbm_address_(hbm_address), active_(groups) {}
  // Inlined into the visit of every record: the call itself cost more than
  // the work; what is rare (Compare) stays out of line.
  __attribute__((always_inline)) void Add(int group, Agent agent, const LoadedInstruction& li,
                                          const AccessPattern& ap, bool write, Picos t0, Picos t1,
                                          bool anywhere = false) {
    std::vector<InFlight>& active = active_[group];
    size_t kept = 0;  // the ones still in flight at t0, in order
    for (const InFlight& b : active) {
      if (b.t1 > t0) {
        active[kept++] = b;
      } else if (b.located >= 0) {
        free_.push_back(b.located);  // done: its slot serves the next one looked up
      }
    }
    active.resize(kept);
    InFlight a{&li, &ap, t0, t1, agent, write, anywhere, -1};
    for (InFlight& b : active) {
      if (MayOverlapInTime(a, b)) Compare(&a, &b);
    }
    active.push_back(a);
  }
  std::vector<Race> Take() { return std::move(races_); }

 private:
  // `a` (the new access) and `b` overlap in time: a race if their bytes
  // overlap too, reported once per pair of instructions.
  __attribute__((noinline)) void Compare(InFlight* a, InFlight* b) {
    Locate(a);
    Locate(b);
    const Access& la = located_[a->located];
    const Access& lb = located_[b->located];
    if (!BoxesOverlap(la, lb) || reported_.count({la.li, lb.li})) return;
    const Shared shared = SharedBytes(k_, la, lb, hbm_address_);
    if (shared.bytes == 0) return;
    races_.push_back(Describe(k_, la, lb, shared, hbm_address_));
    reported_.insert({la.li, lb.li});
    reported_.insert({lb.li, la.li});
  }
  void Locate(InFlight* f) {
    if (f->located >= 0) return;
    Access a{f->agent, f->write, f->li, f->ap, RegionOf(k_, *f->ap), f->anywhere, 0, 0, f->t0, f->t1};
    if (a.anywhere) {  // HBM: the whole tensor, in elements
      a.region.lo = 0;
      a.region.hi = k_.tensors[f->ap->tensor].NumElements();
    }
    std::tie(a.lo, a.hi) = Bytes(k_, a.region, hbm_address_);
    if (free_.empty()) {
      f->located = static_cast<int>(located_.size());
      located_.push_back(a);
    } else {
      f->located = free_.back();
      free_.pop_back();
      located_[f->located] = a;
    }
  }

  const Kernel& k_;
  const std::vector<uint64_t>& hbm_address_;
  std::vector<std::vector<InFlight>> active_;  // in flight, per group
  std::vector<Access> located_;  // the accesses in flight whose regions were looked up
  std::vector<int> free_;        // slots of located_ whose accesses are done
  std::set<std::pair<const LoadedInstruction*, const LoadedInstruction*>> reported_;  // one race per pair
  std::vector<Race> races_;
};

// When each transfer's last piece ended, by (trigger engine, index): a table
// per engine indexed by instruction, filled from the records in one pass.
class TransferEnds {
 public:
  TransferEnds(const LoadedKernel& lk, const ExecutionResult& result) {
    for (const DmaTransferRecord& t : result.dma_copy_ends) {
      std::vector<Picos>& ends = ends_[static_cast<int>(t.trigger_engine)];
      if (ends.empty()) ends.assign(lk.stream(t.trigger_engine).size(), kNone);
      if (t.index >= 0 && static_cast<size_t>(t.index) < ends.size()) ends[t.index] = t.end;
    }
  }
  // The end of (engine, index)'s transfer, or `otherwise` if it has none.
  Picos Of(EngineId engine, int index, Picos otherwise) const {
    const std::vector<Picos>& ends = ends_[static_cast<int>(engine)];
    if (static_cast<size_t>(index) >= ends.size() || ends[index] == kNone) return otherwise;
    return std::max(otherwise, ends[index]);
  }

 private:
  static constexpr Picos kNone = INT64_MIN;
  std::vector<Picos> ends_[kNumEngines];
};

}  // namespace

std::vector<Race> FindRaces(const LoadedKernel& lk, const std::vector<uint64_t>& hbm_address,
                            const ExecutionResult& result) {
  const RaceCandidates candidates(lk, hbm_address);
  const TransferEnds transfer_ends(lk, result);
  // Accesses are visited in order of their start: the records are in order
  // of start (record_order.h), each record's accesses together.
  const std::vector<InstructionRecord>& records = result.instructions;
  Picos last_start = INT64_MIN;
  RaceSweep sweep(lk.kernel(), hbm_address, candidates.groups());
  int next_agent = kNumEngines;
  const LoadedInstruction* streams[kNumEngines];
  for (int e = 0; e < kNumEngines; ++e) streams[e] = lk.stream(static_cast<EngineId>(e)).data();
  for (const InstructionRecord& record : records) {
    const InstructionRecord* rec = &record;
    if (rec->start < last_start) {
      throw SimError(
          "race detector: the instruction records are not in order of start (call SortRecords first, "
          "record_order.h)");
    }
    last_start = rec->start;
    const LoadedInstruction& li = streams[static_cast<int>(rec->engine)][rec->index];
    if (!li.may_race) continue;  // touches nothing two agents touch
    const InstructionView in = lk.instruction(li);
    // Its accesses: who, what, until when. The trigger of a dma_copy touches
    // no data; its transfer does, from the trigger's issue to its last
    // piece's end: once triggered, its destination may change at any moment.
    struct Operand {
      const AccessPattern* ap;
      bool write;
      bool anywhere = false;
    };
    Operand operands[7];
    int n = 0;
    Agent agent{static_cast<int>(rec->engine), false};
    Picos end = rec->end;
    if (IsDma(li.opcode)) {
      agent = Agent{next_agent++, true};
      end = transfer_ends.Of(rec->engine, rec->index, rec->end);
      const bool indirect = li.opcode == Opcode::kDmaIndirect;
      operands[n++] = {&in.src0, false, indirect && !in.broadcast};
      operands[n++] = {&in.src1, false};  // dma_indirect's index: read when the transfer runs
      operands[n++] = {&in.dst, true, indirect && in.broadcast};
    } else {
      operands[n++] = {&in.src0, false};
      operands[n++] = {&in.src1, false};
      operands[n++] = {&in.scalar0.ap, false};
      operands[n++] = {&in.scalar1.ap, false};
      if (in.accumulate) operands[n++] = {&in.dst, false};
      operands[n++] = {&in.dst, true};
      operands[n++] = {&in.acc, true};
    }
    for (const Operand* op = operands; op != operands + n; ++op) {
      const int group = candidates.CandidateGroup(*op->ap);
      if (group >= 0) sweep.Add(group, agent, li, *op->ap, op->write, rec->start, end, op->anywhere);
    }
  }
  std::vector<Race> races = sweep.Take();
  std::stable_sort(races.begin(), races.end(), [](const Race& a, const Race& b) { return a.start < b.start; });
  return races;
}

void CheckRaces(const LoadedKernel& kernel, const std::vector<uint64_t>& hbm_address, bool allow_races,
                ExecutionResult* result) {
  const std::vector<Race> races = FindRaces(kernel, hbm_address, *result);
  if (races.empty()) return;
  if (!allow_races) {
    std::string msg = races.front().description;
    if (races.size() > 1) msg += " (and " + std::to_string(races.size() - 1) + " more races)";
    throw SimError(msg +
                   ". Order the two with a semaphore (signal= on the first, wait= on the second), or allow "
                   "races (--allow-races, Device::set_allow_races) to make this a warning.");
  }
  constexpr size_t kPrinted = 10;  // every race is in the result; stderr gets the first few
  for (size_t i = 0; i < races.size(); ++i) {
    result->warnings.push_back("warning: " + races[i].description);
    if (i < kPrinted) std::cerr << "nsim: warning: " << races[i].description << "\n";
  }
  if (races.size() > kPrinted) std::cerr << "nsim: warning: " << races.size() - kPrinted << " more races\n";
}

}  // namespace nsim
