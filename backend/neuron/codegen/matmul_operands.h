#pragma once
// The TensorE part of a matmul stage: for each output tile [mc, nc] of
// a[..., M, K] @ b[..., K, N], the K loop of matmuls accumulating into PSUM,
// and the operand preparation TensorE needs — K on the partitions for both:
//
//   stationary a^T [kc, mc]: DMA'd directly when a's M stride is 1 (a is a
//     transposed view); otherwise the row strip a[mc, K] is DMA'd with
//     contiguous rows (or read from SBUF when a is resident) and each
//     [mc, kc] block is transposed on TensorE into PSUM and copied to SBUF;
//   moving b [kc, nc]: DMA'd directly when b's N stride is 1 (or read from
//     SBUF-resident row blocks of b); when b is a transposed view (K stride
//     1, e.g. W.t()) its rows are DMA'd contiguously and transposed the same way.
//
// a^T is prepared once per row tile and reused for every column tile of
// that row; b strips are kept for the whole stage when they all fit SBUF
// (else double-buffered). DMA loads are split from the engine work so the
// stage can issue the next tile's loads before this tile's compute.
#include <map>
#include <vector>

#include "backend/neuron/codegen/lowering.h"

namespace nsim {
namespace neuron {
namespace codegen {

class MatmulTiles {
 public:
  MatmulTiles(Lowering& L, int stage, ValueId mm, int nbuf);
  // DMA loads of `t`'s operands (no engine work): may run ahead of Compute.
  void Loads(const Tile& t);
  // Transposes and the K loop; returns the PSUM tile [mc, nc] (fp32).
  AccessPattern Compute(const Tile& t);

 private:
  enum class Mode { kDirect, kStaged, kResident };
  struct Operand {
    Source src;
    Mode mode = Mode::kDirect;
    std::vector<int64_t> strides;  // over [batch..., rows, cols] of the operand
    DType dtype = DType::kF32;
  };
  Operand Prepare(ValueId v, int64_t stride_row_major_dim, bool is_a);
  int64_t BatchOffset(const Operand& o, const Tile& t) const;
  int64_t BatchIndex(const Tile& t) const;  // flattened batch index of the tile
  int RowTile(const Tile& t) const { return t.index / ts_.col_chunks; }
  int StripKey(const Tile& t) const;
  int StripBuffer(const Tile& t, bool* fresh);
  void Transpose(const AccessPattern& dst, const AccessPattern& src, int64_t rows, int64_t cols);

  Lowering& L_;
  int s_;
  const TiledSpace& ts_;
  int nbuf_;
  ValueId mm_;
  Operand a_, b_;
  int64_t M_, K_, N_, kc_, nk_, mmax_, nmax_, nsub_;
  bool b_batched_;
  int at_[2] = {-1, -1}, astage_[2] = {-1, -1}, pst_[2] = {-1, -1}, ps_[2] = {-1, -1};
  std::vector<int> strips_;            // b strips (cached per key, or two rotating)
  std::vector<int> bstage_;            // staged b rows, per strip buffer
  bool cache_strips_ = false;
  std::map<int, bool> strip_loaded_;   // cached strips already loaded (Loads)
  std::map<int, bool> strip_ready_;    // cached strips already transposed (Compute)
  int strip_uses_ = 0;                 // rotating buffers: uses so far (Loads)
  std::map<int, int> strip_of_tile_;   // tile index -> strip buffer chosen in Loads
  int transposes_ = 0;
};

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
