#include "backend/neuron/kernels/random_kernel.h"

#include <algorithm>
#include <string>

#include "backend/neuron/codegen/scheduler.h"
#include "backend/neuron/codegen/tiling.h"
#include "sim/base/error.h"
#include "sim/kernel/builder.h"

namespace nsim {
namespace neuron {
namespace {

constexpr int kAlpha = 7, kBeta = 2;  // Speck32/64's rotations
constexpr int64_t kCols = 512;        // elements per partition of a full tile
constexpr double kWordMask = 65535.0;

uint16_t Ror(uint16_t v, int r) { return static_cast<uint16_t>((v >> r) | (v << (16 - r))); }
uint16_t Rol(uint16_t v, int r) { return static_cast<uint16_t>((v << r) | (v >> (16 - r))); }

using codegen::OnChipAp;

class RandomEmitter {
 public:
  explicit RandomEmitter(int64_t n) : sched_(&k_), cols_(RandomTileCols(n)), tiles_(RandomPaddedCount(n) / (kMaxPartitions * cols_)) {
    k_.name = "random_uniform";
  }

  Kernel Emit() {
    keys_hbm_ = AddTensor(k_, "keys", MemSpace::kHbm, DType::kF32, {kSpeckRounds});
    out_hbm_ = AddTensor(k_, "out", MemSpace::kHbm, DType::kF32, {tiles_ * kMaxPartitions * cols_});
    keys_ = AddTensor(k_, "round_keys", MemSpace::kSbuf, DType::kF32, {kMaxPartitions, kSpeckRounds});
    const int nbuf = tiles_ > 1 ? 2 : 1;
    for (int b = 0; b < nbuf; ++b) {
      for (int w = 0; w < 4; ++w) {
        buf_[b][w] = AddTensor(k_, "w" + std::to_string(w) + "_b" + std::to_string(b), MemSpace::kSbuf, DType::kF32,
                               {kMaxPartitions, cols_});
      }
    }
    // Every partition gets the 22 round keys (a stride-0 DMA), columns of the xor.
    sched_.Dma(codegen::kLoadEngine, OnChipAp(k_, keys_, kMaxPartitions, 0, kSpeckRounds),
               Ap(k_, keys_hbm_, 0, {{0, kMaxPartitions}, {1, kSpeckRounds}}), 0);
    for (int64_t t = 0; t < tiles_; ++t) Tile(t, static_cast<int>(t % nbuf));
    return std::move(k_);
  }

 private:
  AccessPattern W(int b, int w) const { return OnChipAp(k_, buf_[b][w], kMaxPartitions, 0, cols_); }

  // dst = (src <a0> s0) <a1> s1 (a1 may be kNone).
  void Ts(const AccessPattern& dst, const AccessPattern& src, AluOp a0, Scalar s0, AluOp a1 = AluOp::kNone,
          Scalar s1 = Imm(0)) {
    Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorScalar);
    in.dst = dst;
    in.src0 = src;
    in.alu0 = a0;
    in.scalar0 = s0;
    in.alu1 = a1;
    if (a1 != AluOp::kNone) in.scalar1 = s1;
    sched_.Add(std::move(in));
  }
  // dst = (src0 <a0> s0) <a1> src1.
  void Stt(const AccessPattern& dst, const AccessPattern& src0, AluOp a0, double s0, AluOp a1,
           const AccessPattern& src1) {
    Instruction in = MakeInstruction(EngineId::kVector, Opcode::kScalarTensorTensor);
    in.dst = dst;
    in.src0 = src0;
    in.alu0 = a0;
    in.scalar0 = Imm(s0);
    in.alu1 = a1;
    in.src1 = src1;
    sched_.Add(std::move(in));
  }
  void Tt(const AccessPattern& dst, const AccessPattern& a, AluOp op, const AccessPattern& b) {
    Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorTensor);
    in.dst = dst;
    in.src0 = a;
    in.src1 = b;
    in.alu0 = op;
    sched_.Add(std::move(in));
  }

  void Tile(int64_t t, int b) {
    const AccessPattern x = W(b, 0), y = W(b, 1), tmp = W(b, 2), out = W(b, 3);
    Instruction iota = MakeInstruction(EngineId::kGpSimd, Opcode::kIota);  // y = the element's index
    iota.dst = y;
    iota.base = static_cast<double>(t * kMaxPartitions * cols_);
    iota.partition_step = static_cast<double>(cols_);
    iota.free_step = 1;
    sched_.Add(std::move(iota));
    Ts(x, y, AluOp::kRightShift, Imm(16));  // the block: (index >> 16, index & 0xFFFF)
    Ts(y, y, AluOp::kBitwiseAnd, Imm(kWordMask));
    for (int r = 0; r < kSpeckRounds; ++r) {
      // x = (ror(x, 7) + y) ^ k[r]; y = rol(y, 2) ^ x. Every value is below 2^25 (a shifted
      // 16-bit word, a multiple of 2^9 when above 2^24): exact in fp32.
      Ts(tmp, x, AluOp::kLeftShift, Imm(16 - kAlpha), AluOp::kBitwiseAnd, Imm(kWordMask));
      Stt(x, x, AluOp::kRightShift, kAlpha, AluOp::kBitwiseOr, tmp);
      Tt(x, x, AluOp::kAdd, y);
      Ts(x, x, AluOp::kBitwiseAnd, Imm(kWordMask), AluOp::kBitwiseXor, Column(OnChipAp(k_, keys_, kMaxPartitions, r, 1)));
      Ts(tmp, y, AluOp::kLeftShift, Imm(kBeta), AluOp::kBitwiseAnd, Imm(kWordMask));
      Stt(y, y, AluOp::kRightShift, 16 - kBeta, AluOp::kBitwiseOr, tmp);
      Tt(y, y, AluOp::kBitwiseXor, x);
    }
    // (x * 2^8 + (y >> 8)) * 2^-24 = x * 2^-16 + (y >> 8) * 2^-24: the top 24 bits of the result, exact.
    Ts(tmp, y, AluOp::kRightShift, Imm(8), AluOp::kMul, Imm(1.0 / 16777216.0));
    Stt(out, x, AluOp::kMul, 1.0 / 65536.0, AluOp::kAdd, tmp);
    sched_.Dma(codegen::kStoreEngine, Ap(k_, out_hbm_, t * kMaxPartitions * cols_, {{cols_, kMaxPartitions}, {1, cols_}}),
               out, 1);
  }

  Kernel k_;
  codegen::Scheduler sched_;
  int64_t cols_, tiles_;
  int keys_hbm_ = -1, out_hbm_ = -1, keys_ = -1;
  int buf_[2][4] = {{-1, -1, -1, -1}, {-1, -1, -1, -1}};
};

}  // namespace

std::array<uint16_t, kSpeckRounds> SpeckRoundKeys(uint64_t key) {
  // key = (l2, l1, l0, k0), most significant word first, as the paper's test vectors.
  std::array<uint16_t, kSpeckRounds> k{};
  uint16_t l[kSpeckRounds + 2] = {};
  k[0] = static_cast<uint16_t>(key);
  for (int i = 0; i < 3; ++i) l[i] = static_cast<uint16_t>(key >> (16 * (i + 1)));
  for (int i = 0; i + 1 < kSpeckRounds; ++i) {
    l[i + 3] = static_cast<uint16_t>((k[i] + Ror(l[i], kAlpha)) ^ i);
    k[i + 1] = static_cast<uint16_t>(Rol(k[i], kBeta) ^ l[i + 3]);
  }
  return k;
}

std::array<uint16_t, 2> SpeckEncrypt(const std::array<uint16_t, kSpeckRounds>& rk, uint16_t x, uint16_t y) {
  for (uint16_t k : rk) {
    x = static_cast<uint16_t>((Ror(x, kAlpha) + y) ^ k);
    y = static_cast<uint16_t>(Rol(y, kBeta) ^ x);
  }
  return {x, y};
}

float SpeckUniform(uint64_t key, int64_t e) {
  const std::array<uint16_t, 2> c =
      SpeckEncrypt(SpeckRoundKeys(key), static_cast<uint16_t>(e >> 16), static_cast<uint16_t>(e & 0xFFFF));
  return static_cast<float>((static_cast<uint32_t>(c[0]) << 8) | (c[1] >> 8)) / 16777216.0f;
}

int64_t RandomTileCols(int64_t n) {
  return std::max<int64_t>(1, std::min<int64_t>(kCols, (n + kMaxPartitions - 1) / kMaxPartitions));
}

int64_t RandomPaddedCount(int64_t n) {
  const int64_t tile = kMaxPartitions * RandomTileCols(n);
  return std::max<int64_t>(1, (n + tile - 1) / tile) * tile;
}

Kernel RandomUniformKernel(int64_t n) {
  if (n <= 0 || n > kMaxRandomElements) {
    throw SimError("random_uniform kernel: " + std::to_string(n) + " elements (1 to 2^24 per kernel)");
  }
  return RandomEmitter(n).Emit();
}

}  // namespace neuron
}  // namespace nsim
