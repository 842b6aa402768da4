#include "backend/neuron/codegen/matmul_operands.h"

#include <algorithm>

#include "sim/base/error.h"
#include "sim/kernel/builder.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

// Cached b strips may take at most this share of SBUF: weights reused by
// every row tile are worth keeping, but not at the expense of the tiles.
constexpr int64_t kStripCacheShare = 4;

std::string Name(int s, const std::string& what, int i) {
  return "s" + std::to_string(s) + "_" + what + std::to_string(i);
}

int ResidentBlock(const Lowering& L, ValueId root, int64_t flat_row) {
  const auto& blocks = L.info[root].resident;
  auto it = blocks.find(flat_row);
  if (it == blocks.end()) {
    throw SimError("codegen: internal: value %" + std::to_string(root) + " has no SBUF block at row " +
                   std::to_string(flat_row));
  }
  return it->second;
}

}  // namespace

MatmulTiles::MatmulTiles(Lowering& L, int stage, ValueId mm, int nbuf)
    : L_(L), s_(stage), ts_(L.tiling[stage]), nbuf_(nbuf), mm_(mm) {
  const Node& n = L.graph.node(mm);
  const std::vector<int64_t>& sa = L.graph.node(n.inputs[0]).sizes;
  const std::vector<int64_t>& sb = L.graph.node(n.inputs[1]).sizes;
  M_ = sa[sa.size() - 2];
  K_ = sa.back();
  N_ = sb.back();
  b_batched_ = sb.size() > 2;
  kc_ = std::min({K_, L.config.tensor.rows, kMaxPartitions});
  nk_ = (K_ + kc_ - 1) / kc_;
  mmax_ = ts_.max_partitions;
  nmax_ = ts_.tile_cols;
  nsub_ = (nmax_ + kMaxPartitions - 1) / kMaxPartitions;
  a_ = Prepare(n.inputs[0], M_, true);
  b_ = Prepare(n.inputs[1], N_, false);

  for (int i = 0; i < nbuf_; ++i) {
    at_[i] = L.Sbuf(Name(s_, "aT", i), a_.dtype, kc_, nk_ * mmax_);
    if (a_.mode == Mode::kStaged) astage_[i] = L.Sbuf(Name(s_, "a", i), a_.dtype, mmax_, K_);
    ps_[i] = L.Psum(Name(s_, "ps", i), mmax_, nmax_);
  }
  if (a_.mode != Mode::kDirect || b_.mode == Mode::kStaged) {
    for (int i = 0; i < 2; ++i) pst_[i] = L.Psum(Name(s_, "psT", i), kc_, kMaxPartitions);
  }
  if (b_.mode == Mode::kResident) return;
  int64_t batches = 1;
  for (size_t d = 0; d + 2 < sb.size(); ++d) batches *= sb[d];
  const int64_t strips = ts_.col_chunks * (b_batched_ ? batches : 1);
  int64_t strip_bytes = nk_ * nmax_ * DTypeSize(b_.dtype);
  if (b_.mode == Mode::kStaged) strip_bytes += nsub_ * K_ * DTypeSize(b_.dtype);
  cache_strips_ = strips * strip_bytes <= L.config.memory.sbuf_bytes_per_partition / kStripCacheShare;
  const int64_t count = cache_strips_ ? strips : std::min<int64_t>(2, strips);
  for (int i = 0; i < count; ++i) {
    strips_.push_back(L.Sbuf(Name(s_, "bs", i), b_.dtype, kc_, nk_ * nmax_));
    if (b_.mode == Mode::kStaged) {
      bstage_.push_back(L.Sbuf(Name(s_, "bt", i), b_.dtype, std::min(nmax_, kMaxPartitions), nsub_ * K_));
    }
  }
}

MatmulTiles::Operand MatmulTiles::Prepare(ValueId v, int64_t free_size, bool is_a) {
  Operand o;
  o.src = L_.SourceOf(v);
  if (o.src.resident) {
    o.mode = Mode::kResident;
    o.dtype = L_.info[o.src.root].tile_dtype;
    return o;
  }
  o.dtype = o.src.desc.dtype;
  o.strides = o.src.desc.strides;
  // a is read as [K, M] (free dim M), b as [K, N] (free dim N): direct DMA
  // when that free dim is contiguous in HBM, or when neither dim is (no
  // layout gives contiguous runs); else contiguous rows plus TensorE transposes.
  const int64_t free_stride = is_a ? o.strides[o.strides.size() - 2] : o.strides.back();
  const int64_t k_stride = is_a ? o.strides.back() : o.strides[o.strides.size() - 2];
  const bool direct = free_stride == 1 || k_stride != 1 || free_size == 1;
  o.mode = direct ? Mode::kDirect : Mode::kStaged;
  return o;
}

int64_t MatmulTiles::BatchOffset(const Operand& o, const Tile& t) const {
  int64_t off = o.src.desc.offset;
  if (&o == &b_ && !b_batched_) return off;
  for (int i = 0; i < ts_.chunk_dim; ++i) off += t.outer[i] * o.strides[ts_.rows[i].innermost];
  return off;
}

int64_t MatmulTiles::BatchIndex(const Tile& t) const { return t.flat_row / M_; }

int MatmulTiles::StripKey(const Tile& t) const {
  return static_cast<int>((b_batched_ ? BatchIndex(t) : 0) * ts_.col_chunks + t.col_chunk);
}

int MatmulTiles::StripBuffer(const Tile& t, bool* fresh) {
  if (cache_strips_) {
    const int key = StripKey(t);
    *fresh = !strip_loaded_[key];
    strip_loaded_[key] = true;
    return key;
  }
  *fresh = true;
  return strip_uses_++ % static_cast<int>(strips_.size());
}

void MatmulTiles::Loads(const Tile& t) {
  const Kernel& k = L_.kernel;
  const int ab = RowTile(t) % nbuf_;
  const int64_t mc = t.partitions;
  if (t.col_chunk == 0 && a_.mode != Mode::kResident) {
    const int64_t sm = a_.strides[a_.strides.size() - 2], sk = a_.strides.back();
    const int64_t off = BatchOffset(a_, t) + t.chunk_start * sm;
    if (a_.mode == Mode::kStaged) {
      L_.sched.Dma(kLoadEngine, OnChipAp(k, astage_[ab], mc, 0, K_),
                   Ap(k, a_.src.tensor, off, {{sm, mc}, {sk, K_}}), L_.NextQueue());
    } else {
      for (int64_t kt = 0; kt < nk_; ++kt) {
        const int64_t k0 = kt * kc_, kc = std::min(kc_, K_ - k0);
        L_.sched.Dma(kLoadEngine, OnChipAp(k, at_[ab], kc, kt * mmax_, mc),
                     Ap(k, a_.src.tensor, off + k0 * sk, {{sk, kc}, {sm, mc}}), L_.NextQueue());
      }
    }
  }
  if (b_.mode == Mode::kResident) return;
  bool fresh = false;
  const int buf = StripBuffer(t, &fresh);
  strip_of_tile_[t.index] = fresh ? buf : -1 - buf;
  if (!fresh) return;
  const int64_t sk = b_.strides[b_.strides.size() - 2], sn = b_.strides.back();
  const int64_t off = BatchOffset(b_, t) + t.c0 * sn, nc = t.ncols;
  if (b_.mode == Mode::kDirect) {
    for (int64_t kt = 0; kt < nk_; ++kt) {
      const int64_t k0 = kt * kc_, kc = std::min(kc_, K_ - k0);
      L_.sched.Dma(kLoadEngine, OnChipAp(k, strips_[buf], kc, kt * nmax_, nc),
                   Ap(k, b_.src.tensor, off + k0 * sk, {{sk, kc}, {sn, nc}}), L_.NextQueue());
    }
    return;
  }
  for (int64_t j = 0; j * kMaxPartitions < nc; ++j) {
    const int64_t n0 = j * kMaxPartitions, ncs = std::min(kMaxPartitions, nc - n0);
    L_.sched.Dma(kLoadEngine, OnChipAp(k, bstage_[buf], ncs, j * K_, K_),
                 Ap(k, b_.src.tensor, off + n0 * sn, {{sn, ncs}, {sk, K_}}), L_.NextQueue());
  }
}

void MatmulTiles::Transpose(const AccessPattern& dst, const AccessPattern& src, int64_t rows, int64_t cols) {
  const int pst = pst_[transposes_++ % 2];
  const AccessPattern ps = OnChipAp(L_.kernel, pst, cols, 0, rows);
  Instruction tr = MakeInstruction(EngineId::kTensor, Opcode::kTranspose);
  tr.dst = ps;
  tr.src0 = src;
  L_.sched.Add(std::move(tr));
  Instruction cp = MakeInstruction(EngineId::kVector, Opcode::kTensorCopy);
  cp.dst = dst;
  cp.src0 = ps;
  L_.sched.Add(std::move(cp));
}

AccessPattern MatmulTiles::Compute(const Tile& t) {
  const Kernel& k = L_.kernel;
  const int ab = RowTile(t) % nbuf_;
  const int64_t mc = t.partitions, nc = t.ncols;
  if (t.col_chunk == 0 && a_.mode != Mode::kDirect) {
    for (int64_t kt = 0; kt < nk_; ++kt) {
      const int64_t k0 = kt * kc_, kc = std::min(kc_, K_ - k0);
      const int src_tensor = a_.mode == Mode::kStaged ? astage_[ab] : ResidentBlock(L_, a_.src.root, t.flat_row);
      Transpose(OnChipAp(k, at_[ab], kc, kt * mmax_, mc), OnChipAp(k, src_tensor, mc, k0, kc), mc, kc);
    }
  }
  int buf = -1;
  if (b_.mode != Mode::kResident) {
    const int recorded = strip_of_tile_.at(t.index);
    const bool fresh = recorded >= 0;
    buf = fresh ? recorded : -1 - recorded;
    if (fresh && b_.mode == Mode::kStaged) {
      for (int64_t j = 0; j * kMaxPartitions < nc; ++j) {
        const int64_t n0 = j * kMaxPartitions, ncs = std::min(kMaxPartitions, nc - n0);
        for (int64_t kt = 0; kt < nk_; ++kt) {
          const int64_t k0 = kt * kc_, kc = std::min(kc_, K_ - k0);
          Transpose(OnChipAp(k, strips_[buf], kc, kt * nmax_ + n0, ncs), OnChipAp(k, bstage_[buf], ncs, j * K_ + k0, kc),
                    ncs, kc);
        }
      }
    }
  }
  const AccessPattern ps = OnChipAp(k, ps_[t.index % nbuf_], mc, 0, nc);
  for (int64_t kt = 0; kt < nk_; ++kt) {
    const int64_t k0 = kt * kc_, kc = std::min(kc_, K_ - k0);
    Instruction mm = MakeInstruction(EngineId::kTensor, Opcode::kMatmul);
    mm.dst = ps;
    mm.src0 = OnChipAp(k, at_[ab], kc, kt * mmax_, mc);
    mm.src1 = b_.mode == Mode::kResident
                  ? OnChipAp(k, ResidentBlock(L_, b_.src.root, (b_batched_ ? BatchIndex(t) : 0) * K_ + k0), kc, t.c0, nc)
                  : OnChipAp(k, strips_[buf], kc, kt * nmax_, nc);
    mm.accumulate = kt > 0;
    L_.sched.Add(std::move(mm));
  }
  return ps;
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
