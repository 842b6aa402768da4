#include "sim/model/loaded_kernel.h"

#include "sim/config/params.h"

#include <algorithm>
#include <exception>
#include <sstream>
#include <utility>

#include "sim/base/checked.h"
#include "sim/base/error.h"
#include "sim/base/word_hash.h"
#include "sim/isa/common.h"
#include "sim/model/execution_metrics.h"
#include "sim/kernel/ap_cache.h"
#include "sim/kernel/builder.h"
#include "sim/kernel/hash.h"
#include "sim/memory/onchip_layout.h"

namespace nsim {

// The engines walk one of these per instruction: keep it within a cache line.
static_assert(sizeof(LoadedInstruction) <= 64, "the hot per-instruction record outgrew a cache line");

bool Region::Overlaps(const Region& o) const {
  if (tensor < 0 || o.tensor < 0 || space != o.space) return false;
  if (space == MemSpace::kHbm && tensor != o.tensor) return false;
  if (space != MemSpace::kHbm && (p1 <= o.p0 || o.p1 <= p0)) return false;
  return lo < o.hi && o.lo < hi;
}

bool operator==(const DmaPlan& a, const DmaPlan& b) {
  return a.full_bytes == b.full_bytes && a.full_descriptors == b.full_descriptors && a.last_bytes == b.last_bytes &&
         a.last_descriptors == b.last_descriptors && a.first_engine == b.first_engine && a.engines == b.engines &&
         a.count == b.count && a.touches_hbm == b.touches_hbm && a.rate == b.rate;
}

size_t DmaPlanHash::operator()(const DmaPlan& p) const {
  WordHash h;
  h.Mix(static_cast<uint64_t>(p.full_bytes)).Mix(static_cast<uint64_t>(p.full_descriptors));
  h.Mix(static_cast<uint64_t>(p.last_bytes)).Mix(static_cast<uint64_t>(p.last_descriptors));
  h.Mix(uint64_t{p.first_engine} << 32 | uint64_t{p.engines} << 16 | p.count).Mix(p.touches_hbm);
  h.Mix(static_cast<uint64_t>(p.rate * 1e6));
  return static_cast<size_t>(h.value());
}

namespace {

std::string KernelWhere(const Kernel& k) { return "kernel '" + k.name + "'"; }

// Smallest and largest element offset an affine walk reaches.
void Extent(const ApDims& dims, size_t first, int64_t* lo, int64_t* hi) {
  *lo = *hi = 0;
  for (size_t d = first; d < dims.size(); ++d) {
    const int64_t span = dims[d].stride * (dims[d].size - 1);
    if (span < 0) *lo += span; else *hi += span;
  }
}

// Contiguous runs of a walk: `count` runs of `elems` elements each.
struct Runs {
  int64_t count = 1, elems = 1;
};
Runs RunsOf(const ApDims& dims, size_t first) {
  Runs r;
  int64_t total = 1;
  for (size_t d = first; d < dims.size(); ++d) total *= dims[d].size;
  int64_t block = 1;
  for (size_t d = dims.size(); d-- > first;) {
    if (dims[d].size == 1) continue;
    if (dims[d].stride != block) break;
    block *= dims[d].size;
  }
  r.elems = block;
  r.count = total / std::max<int64_t>(block, 1);
  return r;
}

int64_t Descriptors(const Runs& r, int64_t esize, int64_t max_desc_bytes) {
  const int64_t run_bytes = r.elems * esize;
  return r.count * std::max<int64_t>(1, (run_bytes + max_desc_bytes - 1) / max_desc_bytes);
}

// The time the DMA model will charge a piece (descriptors, then bytes at the
// engine bandwidth) must be a representable duration; checked here so that a
// kernel that cannot be timed fails at load, naming its line.
void CheckDmaPieceTime(const HardwareConfig& c, const DmaPiece& p) {
  CheckedMul(c.dma.descriptor_ps, p.descriptors, "the descriptor time of a DMA piece in picoseconds");
  CheckedRound(static_cast<double>(p.bytes) / p.rate / c.dma.bytes_per_ns * 1000.0,
               "the transfer time of a DMA piece in picoseconds");
}

// The highest value each semaphore can reach is the sum of every signal to it
// (a kernel has no loops); it must fit the 64-bit counter. Fed every
// instruction in stream order; Check() fails on the first signal that
// overflows.
class SemaphoreRange {
 public:
  explicit SemaphoreRange(const Kernel& k) : k_(k), total_(k.semaphores.size(), 0) {}
  void Add(int engine, size_t i, const InstructionView& in) {
    if (overflow_engine_ >= 0) return;
    for (const SemSignal& s : in.signals) {
      if (__builtin_add_overflow(total_[s.sem], s.delta, &total_[s.sem])) {
        overflow_engine_ = engine;
        overflow_index_ = i;
        signal_ = s;
        return;
      }
    }
  }
  void Check() const {
    if (overflow_engine_ < 0) return;
    const std::string& name = k_.semaphores[signal_.sem];
    isa::Fail(k_, k_.instruction(overflow_engine_, overflow_index_), "signal=" + name + "+" + std::to_string(signal_.delta) + " takes semaphore '" + name +
                                  "' past the largest value a semaphore holds, " + std::to_string(kMaxInt64));
  }

 private:
  const Kernel& k_;
  std::vector<int64_t> total_;
  int overflow_engine_ = -1;  // where the first overflowing signal is
  size_t overflow_index_ = 0;
  SemSignal signal_;
};

// S8: a dma_copy is spread over up to `engines` DMA engines, each moving
// `partitions_per_engine` partitions of the on-chip side.
DmaPlan PlanDma(const Kernel& k, const HardwareConfig& c, const InstructionView& in) {
  const TensorDecl& dt = k.tensors[in.dst.tensor];
  const TensorDecl& st = k.tensors[in.src0.tensor];
  const bool dst_onchip = dt.space != MemSpace::kHbm, src_onchip = st.space != MemSpace::kHbm;
  const AccessPattern& side = dst_onchip ? in.dst : in.src0;
  const bool onchip = dst_onchip || src_onchip;
  const int64_t rows = onchip ? side.Partitions() : (side.dims.empty() ? 1 : side.dims[0].size);
  const int64_t total = in.dst.NumElements();
  const int64_t esize = std::max(DTypeSize(dt.dtype), DTypeSize(st.dtype));
  const int64_t ppe = c.dma.partitions_per_engine;
  const int64_t engines = std::max<int64_t>(1, std::min(c.dma.engines, (rows + ppe - 1) / ppe));
  const int64_t chunk = (rows + engines - 1) / engines;
  const int64_t first_engine = onchip ? side.partition_start / ppe : 0;
  // dma_transpose: the DGE reads src in transposed blocks (S2: "16 engines write a [128, 16] tile
  // cooperatively"), so only dst's runs are descriptors; it moves at a fraction of a copy's throughput.
  const bool transpose = in.opcode == Opcode::kDmaTranspose;
  const double rate = !transpose ? 1.0 : src_onchip ? c.dma.transpose_from_sbuf : c.dma.transpose_from_hbm;

  auto side_desc = [&](const AccessPattern& ap, const TensorDecl& t, int64_t piece_elems) {
    const bool on = t.space != MemSpace::kHbm;
    const Runs r = RunsOf(ap.dims, on ? 1 : 0);
    const int64_t all = Descriptors(r, DTypeSize(t.dtype), c.dma.max_descriptor_bytes) * (on ? ap.Partitions() : 1);
    // This piece's share, rounded up; 128-bit because descriptors x elements can pass 2^63.
    return static_cast<int64_t>((static_cast<__int128>(all) * piece_elems + total - 1) / total);
  };
  // A piece of `piece_rows` rows (its cost depends on nothing else).
  auto piece = [&](int64_t piece_rows) {
    const int64_t elems = total / rows * piece_rows;
    DmaPiece p;
    p.bytes = elems * esize;
    p.descriptors = transpose ? side_desc(in.dst, dt, elems)
                              : std::max(side_desc(in.dst, dt, elems), side_desc(in.src0, st, elems));
    p.rate = rate;
    CheckDmaPieceTime(c, p);
    return p;
  };
  // Counts fit 16 bits: rows <= 128 partitions (or an HBM dim, split over
  // at most `engines` pieces), and the config allows few DMA engines.
  if (c.dma.engines > UINT16_MAX) throw SimError("config '" + c.name + "': too many DMA engines");
  DmaPlan plan;
  const int64_t count = (rows + chunk - 1) / chunk;  // <= engines
  plan.count = static_cast<uint16_t>(count);
  plan.first_engine = static_cast<uint16_t>(first_engine % c.dma.engines);
  plan.engines = static_cast<uint16_t>(c.dma.engines);
  const int64_t last_rows = rows - (count - 1) * chunk;
  const DmaPiece full = piece(chunk), last = last_rows == chunk ? full : piece(last_rows);
  plan.full_bytes = full.bytes;
  plan.full_descriptors = full.descriptors;
  plan.last_bytes = last.bytes;
  plan.last_descriptors = last.descriptors;
  plan.touches_hbm = !dst_onchip || !src_onchip;
  plan.rate = rate;
  return plan;
}

// What one instruction reads and writes, for the RAW check at load.
struct Footprint {
  Region writes[2];
  Region reads[5];
  int num_writes = 0, num_reads = 0;
};

Footprint FootprintOf(const Kernel& k, const InstructionView& in) {
  Footprint f;
  if (!IsDma(in.opcode)) {  // DMA outputs are ordered by semaphores only
    f.writes[f.num_writes++] = RegionOf(k, in.dst);
    if (in.acc.present()) f.writes[f.num_writes++] = RegionOf(k, in.acc);
  }
  for (const AccessPattern* ap : {&in.src0, &in.src1, &in.scalar0.ap, &in.scalar1.ap}) {
    if (ap->present()) f.reads[f.num_reads++] = RegionOf(k, *ap);
  }
  // An accumulating matmul reads its PSUM tile near-memory (S1: read-
  // accumulate-write "controlled by TensorE only"), in TensorE pipeline
  // order: consecutive accumulations issue at their II, no RAW wait. Other
  // engines reading the tile synchronise through semaphores.
  if (in.accumulate && in.opcode != Opcode::kMatmul) f.reads[f.num_reads++] = RegionOf(k, in.dst);
  return f;
}

// An in-order engine never has more than a few instructions in flight (the
// pipeline latency is a few IIs at most), so producers further back than a
// bounded window have always committed.
constexpr size_t kRawWindow = 8 * sizeof(LoadedInstruction::raw_deps);  // one bit per earlier instruction

// The write regions of a stream's last instructions that write (most
// instructions of a DMA queue's stream write nothing the RAW rule orders),
// newest last, for the RAW dependencies of the next instruction.
class RecentWriters {
 public:
  void Clear() { pushed_ = 0; }
  // Whether a writer lies within the window of instruction i.
  bool AnyWithin(size_t i) const { return pushed_ > 0 && i - ring_[(pushed_ - 1) % kRawWindow].index <= kRawWindow; }
  // The RAW dependencies of instruction i (see LoadedInstruction::raw_deps).
  uint16_t DepsOf(size_t i, const Footprint& self) const {
    uint16_t deps = 0;
    if (self.num_reads == 0) return 0;
    for (size_t n = 0; n < std::min(pushed_, kRawWindow); ++n) {
      const Entry& prev = ring_[(pushed_ - 1 - n) % kRawWindow];
      const size_t d = i - prev.index;
      if (d > kRawWindow) break;  // older writers are further back still
      if (Overlap(prev, self)) deps |= static_cast<uint16_t>(1u << (d - 1));
    }
    return deps;
  }
  void Push(size_t i, const Footprint& f) {
    if (f.num_writes == 0) return;
    Entry& e = ring_[pushed_++ % kRawWindow];
    e.index = i;
    e.num_writes = f.num_writes;
    std::copy(f.writes, f.writes + f.num_writes, e.writes);
  }

 private:
  struct Entry {
    size_t index = 0;
    Region writes[2];
    int num_writes = 0;
  };
  static bool Overlap(const Entry& prev, const Footprint& self) {
    for (int w = 0; w < prev.num_writes; ++w) {
      for (int r = 0; r < self.num_reads; ++r) {
        if (prev.writes[w].Overlaps(self.reads[r])) return true;
      }
    }
    return false;
  }
  std::array<Entry, kRawWindow> ring_;
  size_t pushed_ = 0;
};

uint64_t HashBound(const BoundAccess& b) {
  WordHash h;
  h.Mix(static_cast<uint64_t>(b.space)).Mix(static_cast<uint64_t>(b.dtype));
  h.Mix(static_cast<uint64_t>(b.partition_start)).Mix(static_cast<uint64_t>(b.partitions));
  h.Mix(b.base).Mix(static_cast<uint64_t>(b.count));
  for (const ApDim& d : b.dims) h.Mix(static_cast<uint64_t>(d.stride)).Mix(static_cast<uint64_t>(d.size));
  return h.value();
}

bool SameBound(const BoundAccess& a, const BoundAccess& b) {
  return a.space == b.space && a.dtype == b.dtype && a.partition_start == b.partition_start &&
         a.partitions == b.partitions && a.base == b.base && a.count == b.count && a.dims.n == b.dims.n &&
         std::equal(a.dims.begin(), a.dims.end(), b.dims.begin());
}

}  // namespace

Region RegionOf(const Kernel& k, const AccessPattern& ap) {
  Region r;
  if (!ap.present()) return r;
  const TensorDecl& t = k.tensors[ap.tensor];
  r.space = t.space;
  r.tensor = ap.tensor;
  int64_t lo, hi;
  if (t.space == MemSpace::kHbm) {
    Extent(ap.dims, 0, &lo, &hi);
    r.lo = ap.offset + lo;
    r.hi = ap.offset + hi + 1;
    return r;
  }
  Extent(ap.dims, 1, &lo, &hi);
  const int64_t es = DTypeSize(t.dtype);
  r.p0 = ap.partition_start;
  r.p1 = ap.partition_start + ap.Partitions();
  r.lo = t.partition_offset + (ap.offset + lo) * es;
  r.hi = t.partition_offset + (ap.offset + hi + 1) * es;
  return r;
}

// What the walk over the instructions carries from one to the next.
struct LoadedKernel::WalkState {
  WalkState(const Kernel& k, bool hash)
      : hash(hash), hasher(k), range(k), recent_bindings(ApCache<const BoundAccess*>::SlotsLog2For(k.NumInstructions())) {}
  bool hash;  // false: the caller knows the kernel's hash
  KernelHasher hasher;
  SemaphoreRange range;
  RecentWriters writers;                           // of the engine being walked
  ApCache<const BoundAccess*> recent_bindings;
  // DMA pieces per issuing engine and queue (ValidateDma checked the queue range).
  std::array<std::vector<int64_t>, kNumEngines> queue_pieces;
  std::vector<int> operand_tensors;                // the tensor of each operand_table_ entry
  // Distinct DMA plans so far -> index in dma_plans_: a long kernel moves the
  // same few tile shapes again and again, so dma_copies share plans.
  std::unordered_map<DmaPlan, int, DmaPlanHash> plan_index;
};

// One walk over the instructions: a million-instruction kernel is far larger
// than the caches, and each walk over it costs its memory traffic. The errors
// are those, and in the order, of the separate steps it replaces: CheckKernel
// (every instruction), the semaphore range, the layout, the semaphore count,
// then the first instruction that fails to prepare. So the checks run on
// every instruction while a preparation error waits its turn.
LoadedKernel::LoadedKernel(Kernel kernel, const HardwareConfig& config, std::optional<uint64_t> known_hash)
    : kernel_(std::move(kernel)), config_name_(config.name), config_hash_(ConfigContentHash(config)) {
  CheckTensors(kernel_);
  std::exception_ptr layout_error, count_error, prepare_error;
  try {
    Layout(config);
  } catch (const SimError&) {
    layout_error = std::current_exception();
  }
  try {
    CheckSemaphoreCount(config);
  } catch (const SimError&) {
    count_error = std::current_exception();
  }
  ReserveTables();
  tensor_agents_.assign(kernel_.tensors.size(), TensorAgents{});
  // A kernel with loops hashes its loop form (KernelHash), not its unrolled streams.
  WalkState state(kernel_, !known_hash.has_value() && !kernel_.loops());
  bool preparing = layout_error == nullptr && count_error == nullptr;
  for (int e = 0; e < kNumEngines; ++e) {
    const StreamView stream = kernel_.stream(e);
    streams_[e].resize(stream.size());
    state.writers.Clear();
    for (size_t i = 0; i < stream.size(); ++i) {
      const InstructionView in = stream[i];
      CheckInstruction(kernel_, e, in);
      state.range.Add(e, i, in);
      NoteAgents(e, in);
      if (!preparing) continue;
      try {
        PrepareInstruction(config, e, i, in, &state);
      } catch (const SimError&) {
        prepare_error = std::current_exception();
        preparing = false;
      }
    }
  }
  state.range.Check();
  for (const std::exception_ptr& error : {layout_error, count_error, prepare_error}) {
    if (error) std::rethrow_exception(error);
  }
  hash_ = known_hash.has_value() ? *known_hash : kernel_.loops() ? KernelHash(kernel_) : state.hasher.hash();
  Finish(state);
}

void LoadedKernel::CheckSemaphoreCount(const HardwareConfig& c) const {
  if (static_cast<int64_t>(kernel_.semaphores.size()) > c.kernel.semaphores) {
    throw SimError(KernelWhere(kernel_) + " declares " + std::to_string(kernel_.semaphores.size()) +
                   " semaphores; " + c.name + " has " + std::to_string(c.kernel.semaphores));
  }
}

// Room for the operand table before its size is known: the most one
// instruction can use. Capacity never written to is
// never faulted in, so it costs no resident memory, and the tables never
// move (a moved table would leave its old copy in the heap).
void LoadedKernel::ReserveTables() {
  const size_t n = kernel_.NumInstructions();
  operand_table_.reserve(6 * n);
}

void LoadedKernel::Layout(const HardwareConfig& c) {
  const int64_t psum_cap = c.memory.psum_banks * c.memory.psum_bank_bytes;
  OnChipLayout layout(c.memory.psum_bank_bytes);
  for (TensorDecl& t : kernel_.tensors) {
    if (t.space == MemSpace::kHbm) continue;
    if (t.shape.empty() || t.shape[0] > c.memory.partitions) {
      std::ostringstream os;
      os << KernelWhere(kernel_) << " line " << t.line << ": tensor '" << t.name << "' spans "
         << (t.shape.empty() ? 0 : t.shape[0]) << " partitions; " << c.name << " has " << c.memory.partitions;
      throw SimError(os.str());
    }
    const int64_t bytes = BytesPerPartition(t);  // fits: CheckKernel checked the shape
    // One tensor beyond the capacity stops here, before any sum can overflow.
    if (t.space == MemSpace::kSbuf && bytes > c.memory.sbuf_bytes_per_partition) {
      sbuf_used_ = bytes;
      break;
    }
    if (t.space == MemSpace::kPsum && bytes > psum_cap) {
      psum_used_ = bytes;
      break;
    }
    const int64_t bank = c.memory.psum_bank_bytes;
    if (t.space == MemSpace::kPsum && t.at >= 0 && bytes <= bank && t.at / bank != (t.at + bytes - 1) / bank) {
      std::ostringstream os;
      os << KernelWhere(kernel_) << " line " << t.line << ": PSUM tensor '" << t.name << "' at=" << t.at
         << " straddles two " << bank << " B banks (a matmul writes one bank)";
      throw SimError(os.str());
    }
    t.partition_offset = layout.Place(t.space, bytes, t.at);
    sbuf_used_ = layout.sbuf_used();
    psum_used_ = layout.psum_used();
  }
  auto over = [&](MemSpace s, int64_t used, int64_t cap) {
    std::ostringstream os;
    os << KernelWhere(kernel_) << ": " << (s == MemSpace::kSbuf ? "SBUF" : "PSUM") << " over capacity: tensors need "
       << used << " bytes per partition, " << c.name << " has " << cap << ". Largest:";
    std::vector<const TensorDecl*> ts;
    for (const TensorDecl& t : kernel_.tensors) if (t.space == s) ts.push_back(&t);
    std::sort(ts.begin(), ts.end(), [](const TensorDecl* a, const TensorDecl* b) {
      return BytesPerPartition(*a) > BytesPerPartition(*b);
    });
    for (size_t i = 0; i < ts.size() && i < 3; ++i)
      os << " '" << ts[i]->name << "' " << BytesPerPartition(*ts[i]) << " B";
    throw SimError(os.str());
  };
  if (sbuf_used_ > c.memory.sbuf_bytes_per_partition) over(MemSpace::kSbuf, sbuf_used_, c.memory.sbuf_bytes_per_partition);
  if (psum_used_ > psum_cap) over(MemSpace::kPsum, psum_used_, psum_cap);
}

// Instruction i of stream e, after its CheckInstruction: validated, costed,
// bound, its DMA planned, its RAW dependencies found, and hashed.
void LoadedKernel::PrepareInstruction(const HardwareConfig& c, int e, size_t i, const InstructionView& in,
                                      WalkState* state) {
  const OpcodeSpec& spec = Spec(in.opcode);
  if (!(spec.engines & EngineMask(in.engine)) || static_cast<int>(in.engine) != e) {
    std::ostringstream os;
    os << KernelWhere(kernel_) << " line " << in.line << ": " << spec.name << " cannot run on the "
       << EngineName(static_cast<EngineId>(e)) << " engine";
    throw SimError(os.str());
  }
  spec.validate(kernel_, in, c);
  LoadedInstruction& li = streams_[e][i];
  li.engine = in.engine;
  li.index = static_cast<int>(i);
  li.opcode = in.opcode;
  // Semaphores: at most 65535 each (checked), where the kernel's pools hold them.
  if (in.waits.size() > UINT16_MAX || in.signals.size() > UINT16_MAX) {
    isa::Fail(kernel_, in, "more than 65535 wait= or signal= on one instruction");
  }
  li.waits = in.waits.empty() ? 0 : static_cast<uint32_t>(in.waits.data() - kernel_.wait_pool());
  li.num_waits = static_cast<uint16_t>(in.waits.size());
  li.signals = in.signals.empty() ? 0 : static_cast<uint32_t>(in.signals.data() - kernel_.signal_pool());
  li.num_signals = static_cast<uint16_t>(in.signals.size());
  // Costs and bindings are checked arithmetic; name the instruction when they overflow.
  auto located = [&](auto&& f) {
    try {
      return f();
    } catch (const SimError& err) {
      isa::Fail(kernel_, in, err.what());
    }
  };
  li.cost = located([&] { return spec.cost(kernel_, in, c); });
  located([&] {
    BindOperands(in, &li, state);
    return 0;
  });
  if (IsDma(in.opcode)) {
    const DmaPlan plan = located([&] { return PlanDma(kernel_, c, in); });
    const auto [at, added] = state->plan_index.emplace(plan, static_cast<int>(dma_plans_.size()));
    if (added) dma_plans_.push_back(plan);
    li.dma_plan = at->second;
    ++dma_count_;
    dma_piece_count_ += plan.count;
    std::vector<int64_t>& pieces = state->queue_pieces[e];
    pieces.resize(std::max(pieces.size(), static_cast<size_t>(in.queue) + 1), 0);
    pieces[in.queue] += plan.count;
    const TensorDecl& from = kernel_.tensors[in.src0.tensor];
    const TensorDecl& to = kernel_.tensors[in.dst.tensor];
    if (from.space == MemSpace::kHbm) hbm_bytes_read_ += in.src0.NumElements() * DTypeSize(from.dtype);
    if (to.space == MemSpace::kHbm) hbm_bytes_written_ += in.dst.NumElements() * DTypeSize(to.dtype);
  }
  ++instructions_;
  flops_[e] += spec.flops(kernel_, in);
  if (in.opcode == Opcode::kTranspose) transpose_flops_[e] += TransposeFlops(in);
  opcode_counts_[e][static_cast<int>(in.opcode)]++;
  // A DMA writes nothing the RAW rule orders; it reads only if some
  // instruction before it in the window writes.
  if (!IsDma(in.opcode) || state->writers.AnyWithin(i)) {
    const Footprint f = FootprintOf(kernel_, in);
    li.raw_deps = state->writers.DepsOf(i, f);
    state->writers.Push(i, f);
  }
  if (state->hash) state->hasher.Add(e, in);
}

// After the walk: the per-queue DMA counts, and which instructions the race
// detector must look at (race_detector.h): those touching HBM (HBM tensors
// race by address, known only per execution; marked by BindOperands) or a
// tensor two agents touch and one writes, known once every instruction has
// been seen.
void LoadedKernel::Finish(const WalkState& state) {
  ShareAgentsOfSharedBytes();
  for (int e = 0; e < kNumEngines; ++e) {
    const std::vector<int64_t>& pieces = state.queue_pieces[e];
    for (size_t q = 0; q < pieces.size(); ++q) {
      if (pieces[q] > 0) dma_queue_transfers_[{static_cast<EngineId>(e), static_cast<int>(q)}] = pieces[q];
    }
  }
  for (auto& stream : streams_) {
    for (LoadedInstruction& li : stream) {
      for (uint32_t j = li.operands; j < li.operands + li.num_operands && !li.may_race; ++j) {
        li.may_race = tensor_agents_[state.operand_tensors[j]].MayRace();
      }
    }
  }
}

// On-chip tensors the kernel placed on shared bytes (at=) are one memory to
// the race detector: each gets the agents of every tensor it overlaps
// (connected runs of overlapping [offset, offset + bytes) per space).
void LoadedKernel::ShareAgentsOfSharedBytes() {
  const std::vector<TensorDecl>& ts = kernel_.tensors;
  if (std::none_of(ts.begin(), ts.end(), [](const TensorDecl& t) { return t.at >= 0; })) return;
  for (MemSpace space : {MemSpace::kSbuf, MemSpace::kPsum}) {
    std::vector<std::pair<int64_t, size_t>> placed;
    for (size_t t = 0; t < ts.size(); ++t) {
      if (ts[t].space == space) placed.push_back({ts[t].partition_offset, t});
    }
    std::sort(placed.begin(), placed.end());
    for (size_t first = 0; first < placed.size();) {
      size_t last = first;
      int64_t reach = placed[first].first + BytesPerPartition(ts[placed[first].second]);
      TensorAgents run = tensor_agents_[placed[first].second];
      while (last + 1 < placed.size() && placed[last + 1].first < reach) {
        const size_t t = placed[++last].second;
        reach = std::max(reach, placed[last].first + BytesPerPartition(ts[t]));
        run.engines |= tensor_agents_[t].engines;
        run.transfers = std::min(run.transfers + tensor_agents_[t].transfers, 2);
        run.written = run.written || tensor_agents_[t].written;
      }
      for (size_t i = first; i <= last; ++i) tensor_agents_[placed[i].second] = run;
      first = last + 1;
    }
  }
}

// Who touches which tensor (TensorAgents): each engine's instructions are one
// agent, each dma_copy one of its own.
void LoadedKernel::NoteAgents(int engine, const InstructionView& in) {
  auto touch = [&](const AccessPattern& ap, int agent_engine, bool write) {
    if (!ap.present()) return;
    TensorAgents& a = tensor_agents_[ap.tensor];
    if (agent_engine >= 0) a.engines |= 1u << agent_engine;
    else a.transfers = std::min(a.transfers + 1, 2);
    a.written = a.written || write;
  };
  if (IsDma(in.opcode)) {
    touch(in.src0, -1, false);
    touch(in.src1, -1, false);  // dma_indirect's index, read by the transfer when it runs
    touch(in.dst, -1, true);
    return;
  }
  for (const AccessPattern* ap : {&in.src0, &in.src1, &in.scalar0.ap, &in.scalar1.ap}) touch(*ap, engine, false);
  touch(in.dst, engine, true);
  touch(in.acc, engine, true);
}

// The instruction's on-chip operands, bound now (HBM ones are bound per
// execution, when their addresses are known).
// Also marks the instructions touching HBM as race candidates (Finish marks the others).
void LoadedKernel::BindOperands(const InstructionView& in, LoadedInstruction* li, WalkState* state) {
  li->operands = static_cast<uint32_t>(operand_table_.size());
  for (const AccessPattern* ap : {&in.dst, &in.src0, &in.src1, &in.acc, &in.scalar0.ap, &in.scalar1.ap}) {
    if (!ap->present()) continue;
    if (kernel_.tensors[ap->tensor].space == MemSpace::kHbm) {
      li->may_race = true;
      continue;
    }
    // Bound accesses of recently bound patterns are looked up by content.
    const uint64_t h = HashAccessPattern(*ap);
    const BoundAccess* const* hit = state->recent_bindings.Find(*ap, h);
    const BoundAccess* bound = hit != nullptr ? *hit : state->recent_bindings.Put(*ap, h, Intern(Bind(kernel_, *ap, 0)));
    operand_table_.push_back({ap, bound});
    state->operand_tensors.push_back(ap->tensor);
    ++li->num_operands;
  }
}

const BoundAccess* LoadedKernel::Intern(const BoundAccess& b) {
  const uint64_t h = HashBound(b);
  const auto [first, last] = bound_index_.equal_range(h);
  for (auto it = first; it != last; ++it) {
    if (SameBound(*it->second, b)) return it->second;
  }
  bound_.push_back(b);
  bound_index_.emplace(h, &bound_.back());
  return &bound_.back();
}

}  // namespace nsim
