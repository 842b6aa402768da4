#include "backend/neuron/kernels/rms_norm_kernel.h"

#include <algorithm>

#include "backend/neuron/codegen/activation_warmup.h"
#include "backend/neuron/codegen/program_split.h"
#include "backend/neuron/codegen/scheduler.h"
#include "backend/neuron/codegen/tiling.h"
#include "sim/base/error.h"
#include "sim/kernel/builder.h"

namespace nsim {
namespace neuron {
namespace {

using codegen::OnChipAp;
using codegen::Tile;

class RmsNormEmitter {
 public:
  RmsNormEmitter(const RmsNormSpec& spec, const HardwareConfig& c) : spec_(spec), sched_(&k_) {
    k_.name = "rms_norm";
    const std::vector<int64_t>& sizes = spec.x.sizes;
    n_ = sizes.back();
    std::vector<int64_t> rstd_strides = spec.rstd.strides;  // one rstd per row
    rstd_strides.back() = 0;
    operands_ = {spec.x.strides, spec.y.strides, rstd_strides};
    const int64_t rows = std::min<int64_t>(c.memory.partitions, kMaxPartitions);
    ts_ = codegen::TileSpace(sizes, operands_, rows, n_, true);
    nbuf_ = ts_.tiles.size() > 1 ? 2 : 1;
  }

  Kernel Emit() {
    Declare();
    Load(ts_.tiles[0]);
    for (size_t i = 0; i < ts_.tiles.size(); ++i) {
      if (i + 1 < ts_.tiles.size()) Load(ts_.tiles[i + 1]);
      Compute(ts_.tiles[i]);
    }
    codegen::PrewarmActivationTable(&k_);  // the rsqrt table loads during the first DMA
    return std::move(k_);
  }

 private:
  int Sbuf(const std::string& name, DType t, int64_t free) {
    return AddTensor(k_, name, MemSpace::kSbuf, t, {ts_.max_partitions, free});
  }

  void Declare() {
    x_hbm_ = AddTensor(k_, "x", MemSpace::kHbm, spec_.x.dtype, {spec_.x.Extent()});
    if (spec_.has_weight) w_hbm_ = AddTensor(k_, "w", MemSpace::kHbm, spec_.w.dtype, {spec_.w.Extent()});
    y_hbm_ = AddTensor(k_, "y", MemSpace::kHbm, spec_.y.dtype, {spec_.y.Extent()});
    rstd_hbm_ = AddTensor(k_, "rstd", MemSpace::kHbm, DType::kF32, {spec_.rstd.Extent()});
    if (spec_.has_weight) w_ = Sbuf("w_bcast", spec_.w.dtype, n_);
    for (int b = 0; b < nbuf_; ++b) {
      const std::string s = "_b" + std::to_string(b);
      x_[b] = Sbuf("x" + s, spec_.x.dtype, n_);
      sq_[b] = Sbuf("sq" + s, DType::kF32, n_);  // the squares (only their sum is used), then x * rstd
      ss_[b] = Sbuf("ss" + s, DType::kF32, 1);
      rstd_[b] = Sbuf("rstd" + s, DType::kF32, 1);
      y_[b] = Sbuf("y" + s, spec_.y.dtype, n_);
    }
  }

  void Load(const Tile& t) {
    sched_.Dma(codegen::kLoadEngine, OnChipAp(k_, x_[t.index % nbuf_], t.partitions, 0, n_),
               codegen::HbmTileAp(k_, x_hbm_, ts_, t, operands_[0], spec_.x.offset, false), 0);
    if (t.index == 0 && spec_.has_weight) {  // one row, replicated on every partition by a stride-0 DMA
      sched_.Dma(codegen::kLoadEngine, OnChipAp(k_, w_, ts_.max_partitions, 0, n_),
                 Ap(k_, w_hbm_, spec_.w.offset, {{0, ts_.max_partitions}, {spec_.w.strides.back(), n_}}), 1);
    }
  }

  void Compute(const Tile& t) {
    const int b = t.index % nbuf_;
    const int64_t p = t.partitions;
    const AccessPattern x = OnChipAp(k_, x_[b], p, 0, n_), sq = OnChipAp(k_, sq_[b], p, 0, n_);
    const AccessPattern ss = OnChipAp(k_, ss_[b], p, 0, 1), rstd = OnChipAp(k_, rstd_[b], p, 0, 1);
    const AccessPattern y = OnChipAp(k_, y_[b], p, 0, n_);

    Instruction square = MakeInstruction(EngineId::kScalar, Opcode::kActivation);
    square.dst = sq;
    square.src0 = x;
    square.func = ActFunc::kSquare;
    square.acc = ss;
    sched_.Add(std::move(square));

    Instruction mean = MakeInstruction(EngineId::kVector, Opcode::kTensorScalar);
    mean.dst = mean.src0 = ss;
    mean.alu0 = AluOp::kDivide;
    mean.scalar0 = Imm(static_cast<double>(n_));
    mean.alu1 = AluOp::kAdd;
    mean.scalar1 = Imm(spec_.eps);
    sched_.Add(std::move(mean));

    Instruction rsqrt = MakeInstruction(EngineId::kScalar, Opcode::kActivation);
    rsqrt.dst = rstd;
    rsqrt.src0 = ss;
    rsqrt.func = ActFunc::kRsqrt;
    sched_.Add(std::move(rsqrt));

    Instruction norm = MakeInstruction(EngineId::kVector, Opcode::kTensorScalar);
    norm.dst = spec_.has_weight ? sq : y;
    norm.src0 = x;
    norm.alu0 = AluOp::kMul;
    norm.scalar0 = Column(rstd);
    sched_.Add(std::move(norm));

    if (spec_.has_weight) {
      Instruction scale = MakeInstruction(EngineId::kVector, Opcode::kTensorTensor);
      scale.dst = y;
      scale.src0 = sq;
      scale.src1 = OnChipAp(k_, w_, p, 0, n_);
      scale.alu0 = AluOp::kMul;
      sched_.Add(std::move(scale));
    }
    sched_.Dma(codegen::kStoreEngine, codegen::HbmTileAp(k_, y_hbm_, ts_, t, operands_[1], spec_.y.offset, false), y, 2);
    sched_.Dma(codegen::kStoreEngine, codegen::HbmTileAp(k_, rstd_hbm_, ts_, t, operands_[2], spec_.rstd.offset, true), rstd, 3);
  }

  const RmsNormSpec& spec_;
  Kernel k_;
  codegen::Scheduler sched_;
  std::vector<std::vector<int64_t>> operands_;  // strides of x, y, rstd over [rows..., n]
  codegen::TiledSpace ts_;
  int64_t n_ = 0;
  int nbuf_ = 1;
  int x_hbm_ = -1, w_hbm_ = -1, y_hbm_ = -1, rstd_hbm_ = -1, w_ = -1;
  int x_[2] = {-1, -1}, sq_[2] = {-1, -1}, ss_[2] = {-1, -1}, rstd_[2] = {-1, -1}, y_[2] = {-1, -1};
};

}  // namespace

Kernel RmsNormKernel(const RmsNormSpec& spec, const HardwareConfig& config) {
  if (spec.x.sizes.empty() || spec.x.NumElements() == 0) throw SimError("rms_norm kernel: empty input");
  if (spec.rstd.sizes.size() != spec.x.sizes.size()) throw SimError("rms_norm kernel: rstd is not [rows..., 1]");
  return RmsNormEmitter(spec, config).Emit();
}

std::vector<RmsNormSpec> SplitRmsNorm(const RmsNormSpec& spec, int programs) {
  const int rank = static_cast<int>(spec.x.sizes.size());
  for (int axis = 0; axis + 1 < rank; ++axis) {
    if (spec.x.sizes[axis] < programs) continue;
    std::vector<RmsNormSpec> out;
    for (int p = 0; p < programs; ++p) {
      const codegen::RowShare share = codegen::ShareOf(spec.x.sizes[axis], p, programs);
      RmsNormSpec s = spec;
      s.x = codegen::SliceDesc(spec.x, axis, share.first, share.count);
      s.y = codegen::SliceDesc(spec.y, axis, share.first, share.count);
      s.rstd = codegen::SliceDesc(spec.rstd, axis, share.first, share.count);
      out.push_back(std::move(s));
    }
    return out;
  }
  return {};
}

}  // namespace neuron
}  // namespace nsim
