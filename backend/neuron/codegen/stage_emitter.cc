// Emits one stage of a lowered Graph: the tile loop with double buffering
// (the loads of tile i+1 are issued before the compute of tile i, into the
// other buffer), the per-tile compute of the stage's nodes, and the stores
// of outputs and scratch values. Ordering between engines and DMA comes
// from the Scheduler (scheduler.h).
#include <map>
#include <memory>
#include <tuple>

#include "backend/neuron/codegen/fusion_plan.h"
#include "backend/neuron/codegen/lowering.h"
#include "backend/neuron/codegen/matmul_operands.h"
#include "backend/neuron/codegen/pointwise_lowering.h"
#include "sim/base/error.h"
#include "sim/kernel/builder.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

// How a stage reads a value it does not compute.
struct Leaf {
  enum Kind { kImm, kHbm, kResident } kind = kImm;
  double imm = 0;
  Source src;
  std::vector<int64_t> strides;  // over the stage space (kHbm)
  bool column = false;
  bool invariant = false;        // the same data for every tile: loaded once
  int buffers[2] = {-1, -1};
};

// The scale and bias an activation takes from the multiply/add feeding it.
struct Folded {
  Operand src;
  Scalar scale = Imm(1), bias = Imm(0);
};

class StageEmitter : public TileScope {
 public:
  StageEmitter(Lowering& L, int s)
      : L_(L), s_(s), stage_(L.plan.stages[s]), ts_(L.tiling[s]), nbuf_(ts_.tiles.size() > 1 ? 2 : 1) {}

  void Run() {
    CollectLeaves();
    fusions_ = PlanFusions(L_, s_);
    if (stage_.kind == StageKind::kMatmul) mm_ = std::make_unique<MatmulTiles>(L_, s_, stage_.nodes[0], nbuf_);
    const std::vector<Tile>& tiles = ts_.tiles;
    Loads(tiles[0]);
    for (size_t i = 0; i < tiles.size(); ++i) {
      if (i + 1 < tiles.size()) Loads(tiles[i + 1]);
      Compute(tiles[i]);
      Stores(tiles[i]);
    }
  }

  Scheduler& sched() override { return L_.sched; }
  int64_t partitions() const override { return tile_->partitions; }
  int64_t cols() const override { return tile_->ncols; }
  int64_t col0() const override { return tile_->c0; }
  AccessPattern Temp(bool column, int slot) override {
    const int buf = tile_->index % nbuf_;
    int& t = temps_[std::make_tuple(current_, slot, column, buf)];
    if (t == 0) {
      t = 1 + L_.Sbuf(Prefix(current_) + "_t" + std::to_string(slot) + (column ? "c" : "f") + "_b" +
                          std::to_string(buf),
                      DType::kF32, ts_.max_partitions, column ? 1 : ts_.tile_cols);
    }
    return OnChipAp(L_.kernel, t - 1, tile_->partitions, 0, column ? 1 : tile_->ncols);
  }

 private:
  const Node& node(ValueId v) const { return L_.graph.node(v); }
  bool InStage(ValueId v) const { return L_.plan.stage_of[v] == s_; }
  std::string Prefix(ValueId v) const { return "s" + std::to_string(s_) + "_v" + std::to_string(v); }
  bool IsColumn(ValueId v) const { return L_.IsColumn(v, stage_.space); }

  // ---------------------------------------------------------------- leaves
  void CollectLeaves() {
    for (ValueId v : stage_.nodes) {
      const Node& n = node(v);
      if (n.kind == OpKind::kMatmul) continue;  // its operands are MatmulTiles'
      for (ValueId in : n.inputs) {
        if (!InStage(in) && !leaves_.count(in)) leaves_[in] = MakeLeaf(in);
      }
    }
  }

  Leaf MakeLeaf(ValueId v) {
    Leaf l;
    const Node& root = node(L_.Root(v));
    if (root.kind == OpKind::kConstant) {
      l.imm = RoundTo(root.dtype, static_cast<float>(root.scalar));
      return l;
    }
    l.src = L_.SourceOf(v);
    l.column = IsColumn(v);
    if (l.src.resident) {
      l.kind = Leaf::kResident;
      return l;
    }
    l.kind = Leaf::kHbm;
    l.strides = BroadcastStrides(l.src.desc.sizes, l.src.desc.strides, ts_.sizes);
    bool rows_fixed = true;
    for (size_t d = 0; d + 1 < l.strides.size(); ++d) rows_fixed &= l.strides[d] == 0;
    l.invariant = rows_fixed && (l.column || ts_.col_chunks == 1);
    for (int b = 0; b < (l.invariant ? 1 : nbuf_); ++b) {
      l.buffers[b] = L_.Sbuf("s" + std::to_string(s_) + "_in" + std::to_string(v) + "_b" + std::to_string(b),
                             l.src.desc.dtype, ts_.max_partitions, l.column ? 1 : ts_.tile_cols);
    }
    return l;
  }

  Operand LeafOperand(const Leaf& l, const Tile& t) const {
    if (l.kind == Leaf::kImm) return Operand::Imm(l.imm);
    int tensor;
    if (l.kind == Leaf::kResident) {
      tensor = L_.info[l.src.root].resident.at(t.flat_row);
    } else {
      tensor = l.buffers[l.invariant ? 0 : t.index % nbuf_];
    }
    const int64_t c0 = l.kind == Leaf::kResident && !l.column ? t.c0 : 0;
    const AccessPattern ap = OnChipAp(L_.kernel, tensor, t.partitions, c0, l.column ? 1 : t.ncols);
    return l.column ? Operand::Column(ap) : Operand::Full(ap);
  }

  // ---------------------------------------------------------------- fusions
  Folded ResolveFold(ValueId u) {
    Folded r;
    const ValueId p = node(u).inputs[0];
    if (!fusions_.folded.count(p)) {
      r.src = ops_.at(p);
      return r;
    }
    const Node& pn = node(p);
    const int side = ScalarSide(L_, stage_, pn);
    const Operand scalar = ops_.at(pn.inputs[side]);
    const Scalar sc = scalar.kind == Operand::kImm ? Imm(scalar.imm) : Column(scalar.ap);
    const ValueId t = pn.inputs[1 - side];
    if (pn.kind == OpKind::kMul) {
      r.scale = sc;
      r.src = ops_.at(t);
      return r;
    }
    if (pn.kind == OpKind::kSub) {  // t - s == t + (-s), exactly
      if (scalar.kind == Operand::kImm) {
        r.bias = Imm(-scalar.imm);
      } else {
        const AccessPattern neg = Temp(true, 5);
        EmitTensorScalar(*this, neg, scalar.ap, AluOp::kMul, Imm(-1));
        r.bias = Column(neg);
      }
    } else {
      r.bias = sc;
    }
    if (fusions_.folded.count(t)) {
      const Node& qn = node(t);
      const int qs = ScalarSide(L_, stage_, qn);
      const Operand qscalar = ops_.at(qn.inputs[qs]);
      r.scale = qscalar.kind == Operand::kImm ? Imm(qscalar.imm) : Column(qscalar.ap);
      r.src = ops_.at(qn.inputs[1 - qs]);
    } else {
      r.src = ops_.at(t);
    }
    return r;
  }

  // ---------------------------------------------------------------- buffers
  AccessPattern Dest(ValueId v, const Tile& t) {
    const bool column = IsColumn(v);
    const ValueInfo& vi = L_.info[v];
    if (vi.where == Where::kResident) {
      return OnChipAp(L_.kernel, vi.resident.at(t.flat_row), t.partitions, column ? 0 : t.c0, column ? 1 : t.ncols);
    }
    const int buf = t.index % nbuf_;
    int& tensor = bufs_[{v, buf}];
    if (tensor == 0) {
      tensor = 1 + L_.Sbuf(Prefix(v) + "_b" + std::to_string(buf), vi.tile_dtype, ts_.max_partitions,
                           column ? 1 : ts_.tile_cols);
    }
    return OnChipAp(L_.kernel, tensor - 1, t.partitions, 0, column ? 1 : t.ncols);
  }

  AccessPattern AccTemp(ValueId r, const Tile& t) {
    int& tensor = bufs_[{-1 - r, t.index % nbuf_}];
    if (tensor == 0) {
      tensor = 1 + L_.Sbuf(Prefix(r) + "_acc_b" + std::to_string(t.index % nbuf_), DType::kF32, ts_.max_partitions, 1);
    }
    return OnChipAp(L_.kernel, tensor - 1, t.partitions, 0, 1);
  }

  // ---------------------------------------------------------------- phases
  void Loads(const Tile& t) {
    for (auto& [v, l] : leaves_) {
      if (l.kind != Leaf::kHbm || (l.invariant && t.index > 0)) continue;
      const int buf = l.buffers[l.invariant ? 0 : t.index % nbuf_];
      L_.sched.Dma(kLoadEngine, OnChipAp(L_.kernel, buf, t.partitions, 0, l.column ? 1 : t.ncols),
                   HbmTileAp(L_.kernel, l.src.tensor, ts_, t, l.strides, l.src.desc.offset, l.column),
                   L_.NextQueue());
    }
    if (mm_) mm_->Loads(t);
  }

  void Compute(const Tile& t) {
    tile_ = &t;
    ops_.clear();
    for (const auto& [v, l] : leaves_) ops_[v] = LeafOperand(l, t);
    for (ValueId v : stage_.nodes) {
      current_ = v;
      const Node& n = node(v);
      if (n.kind == OpKind::kMatmul) {
        ops_[v] = MatmulResult(v, t);
      } else if (n.kind == OpKind::kView) {
        ops_[v] = ViewOperand(v);
      } else if (!fusions_.folded.count(v)) {
        ops_[v] = ComputeNode(v, t);
      }
    }
  }

  Operand MatmulResult(ValueId v, const Tile& t) {
    const AccessPattern ps = mm_->Compute(t);
    const ValueInfo& vi = L_.info[v];
    // Epilogues read PSUM directly unless the product must be rounded or kept.
    if (vi.tile_dtype == DType::kF32 && vi.where == Where::kTile && vi.outputs.empty()) return Operand::Full(ps);
    const AccessPattern dst = Dest(v, t);
    EmitCopy(*this, dst, ps);
    return Operand::Full(dst);
  }

  // A view aliases its input's tile; computing with it is only valid when
  // it broadcasts over the stage as its input does (stores map any view).
  Operand ViewOperand(ValueId v) { return ops_.at(node(v).inputs[0]); }

  void CheckComputableView(ValueId v) const {
    const ValueId root = L_.Root(v);
    if (node(v).kind != OpKind::kView || (IsColumn(v) == IsColumn(root) && Varies(v) == Varies(root))) return;
    throw SimError("codegen: a view of a computed value from shape " + Shape(node(root).sizes) + " to " +
                   Shape(node(v).sizes) + " changes how it broadcasts in a stage over " + Shape(stage_.space));
  }

  std::vector<bool> Varies(ValueId v) const {
    const std::vector<int64_t>& sz = node(v).sizes;
    std::vector<bool> out(ts_.sizes.size(), false);
    const size_t lead = out.size() - std::min(out.size(), sz.size());
    for (size_t i = 0; i < sz.size() && lead + i < out.size(); ++i) out[lead + i] = sz[i] != 1;
    return out;
  }

  static std::string Shape(const std::vector<int64_t>& s) {
    std::string r = "[";
    for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
    return r + "]";
  }

  Operand ComputeNode(ValueId v, const Tile& t) {
    const Node& n = node(v);
    ActFunc f;
    const bool fused_activation =
        DirectActivation(n.kind, &f) && (fusions_.folded.count(n.inputs[0]) || fusions_.acc_into.count(v));
    std::vector<Operand> in;
    if (!fused_activation) {  // a folded input has no operand of its own
      for (ValueId u : n.inputs) {
        if (InStage(u)) CheckComputableView(u);
        in.push_back(ops_.at(u));
      }
    }
    if (IsBinary(n.kind) && in[0].kind == Operand::kImm && in[1].kind == Operand::kImm) {
      return Operand::Imm(FoldBinary(n, in[0].imm, in[1].imm, L_.info[v].tile_dtype));
    }
    if (n.kind == OpKind::kCast && in[0].kind != Operand::kImm && L_.info[v].where == Where::kTile &&
        L_.kernel.tensors[in[0].ap.tensor].dtype == L_.info[v].tile_dtype) {
      return in[0];  // nothing to convert: alias the input's tile
    }
    const AccessPattern dst = Dest(v, t);
    const Operand out = IsColumn(v) ? Operand::Column(dst) : Operand::Full(dst);
    if (IsRowReduce(n.kind)) {
      auto it = fusions_.acc_into.find(n.inputs[0]);
      if (it != fusions_.acc_into.end() && it->second == v) {  // summed by the activation already
        if (n.kind == OpKind::kRowMean) {
          EmitTensorScalar(*this, dst, AccTemp(v, t), AluOp::kDivide, Imm(static_cast<double>(t.ncols)));
        }
        return out;
      }
      LowerRowReduce(*this, n, in[0], dst);
    } else if (fused_activation) {
      const Folded fold = ResolveFold(v);
      AccessPattern acc;
      if (fusions_.acc_into.count(v)) {
        const ValueId r = fusions_.acc_into.at(v);
        acc = node(r).kind == OpKind::kRowSum ? Dest(r, t) : AccTemp(r, t);
      }
      Operand src = fold.src;
      if (src.kind == Operand::kImm) throw SimError("codegen: internal: activation of an immediate");
      EmitActivation(*this, dst, src.ap, f, fold.scale, fold.bias, acc);
    } else {
      LowerPointwise(*this, n, in, dst);
    }
    return out;
  }

  void Stores(const Tile& t) {
    for (ValueId v : stage_.nodes) {
      const ValueInfo& vi = L_.info[v];
      const bool scratch = vi.where == Where::kScratch && node(v).kind != OpKind::kView;
      if (vi.outputs.empty() && !scratch) continue;
      const Operand& op = ops_.at(v);
      if (op.kind == Operand::kImm) throw SimError("codegen: an output that is a constant");
      const bool column = op.kind == Operand::kColumn;
      if (column && t.col_chunk != 0) continue;
      const ValueId root = L_.Root(v);  // whose tile a view's operand is
      for (int o : vi.outputs) {
        const GraphOutput& out = L_.graph.outputs()[o];
        Store(root, L_.output_tensor[o], ViewDesc(out.desc, node(root).sizes), op, column, t);
      }
      if (scratch) Store(v, vi.scratch, TensorDesc::Contiguous(vi.tile_dtype, node(v).sizes), op, column, t);
    }
  }

  void Store(ValueId v, int tensor, const TensorDesc& desc, const Operand& op, bool column, const Tile& t) {
    const std::vector<int64_t> strides = BroadcastStrides(node(v).sizes, desc.strides, ts_.sizes);
    L_.sched.Dma(kStoreEngine, HbmTileAp(L_.kernel, tensor, ts_, t, strides, desc.offset, column), op.ap,
                 L_.NextQueue());
  }

  Lowering& L_;
  int s_;
  const Stage& stage_;
  const TiledSpace& ts_;
  int nbuf_;
  const Tile* tile_ = nullptr;
  ValueId current_ = -1;
  std::map<ValueId, Leaf> leaves_;
  std::map<ValueId, Operand> ops_;  // values of the current tile
  std::map<std::tuple<ValueId, int, bool, int>, int> temps_;  // tensor + 1
  std::map<std::pair<ValueId, int>, int> bufs_;               // tensor + 1
  FusionPlan fusions_;
  std::unique_ptr<MatmulTiles> mm_;
};

}  // namespace

void EmitStage(Lowering& L, int s) { StageEmitter(L, s).Run(); }

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
