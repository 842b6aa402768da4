#include "validation/loop_kernels.h"

#include <algorithm>

#include "sim/kernel/builder.h"

namespace nsim {
namespace validation {
namespace {

using S = SliceSpec;
constexpr int64_t kPartitions = 128;
constexpr int64_t kTileK = 128, kTileM = 128, kTileN = 512;

Instruction& Dma(StreamWriter& w, EngineId e, AccessPattern dst, AccessPattern src) {
  Instruction& in = w.Emit(e, Opcode::kDmaCopy);
  in.dst = std::move(dst);
  in.src0 = std::move(src);
  return in;
}
// "wait until `sem` >= v"; v <= 0 always holds, so it is left out.
void WaitFor(Instruction& in, int sem, int64_t v) {
  if (v > 0) in.waits.push_back({sem, v});
}
void Signal(Instruction& in, int sem) { in.signals.push_back({sem, 1}); }

AccessPattern Hbm2d(const Kernel& k, int t, int64_t r0, int64_t rows, int64_t c0, int64_t cols) {
  return Slice(k, t, {S::Range(r0, r0 + rows), S::Range(c0, c0 + cols)});
}

struct MatmulTensors {
  int lhsT, rhs, out;
};
MatmulTensors DeclareMatmul(Kernel& k, const MatmulShape& s) {
  return {AddTensor(k, "lhsT", MemSpace::kHbm, DType::kBF16, {s.k, s.m}),
          AddTensor(k, "rhs", MemSpace::kHbm, DType::kBF16, {s.k, s.n}),
          AddTensor(k, "result", MemSpace::kHbm, DType::kBF16, {s.m, s.n})};
}

Instruction& Matmul(StreamWriter& w, AccessPattern dst, AccessPattern stat, AccessPattern mov, bool accumulate) {
  Instruction& in = w.Emit(EngineId::kTensor, Opcode::kMatmul);
  in.dst = std::move(dst);
  in.src0 = std::move(stat);
  in.src1 = std::move(mov);
  in.accumulate = accumulate;
  return in;
}

// Copy-out of one PSUM tile on VectorE (fp32 -> bf16) and its store on
// GpSimd's queue; `tile` counts output tiles, `mm_total` the matmuls that
// must have completed first.
void CopyOutAndStore(Kernel& k, StreamWriter& w, const MatmulTensors& t, int psum, int64_t pbuf, int osb, int64_t obufs, int64_t tile,
                     int64_t mm_total, int64_t row0, int64_t col0, int mm, int copied, int stored) {
  Instruction& cp = w.Emit(EngineId::kVector, Opcode::kTensorCopy);
  cp.dst = Slice(k, osb, {S::All(), S::At(tile % obufs)});
  cp.src0 = Slice(k, psum, {S::All(), S::At(pbuf)});
  WaitFor(cp, mm, mm_total);
  WaitFor(cp, stored, tile - obufs + 1);
  Signal(cp, copied);
  Instruction& st = Dma(w, EngineId::kGpSimd, Hbm2d(k, t.out, row0, kTileM, col0, kTileN),
                        Slice(k, osb, {S::All(), S::At(tile % obufs)}));
  WaitFor(st, copied, tile + 1);
  Signal(st, stored);
}

}  // namespace

Kernel VectorAddKernel(const char* name, int64_t n, int64_t partitions, int64_t free, int buffers) {
  Kernel k;
  StreamWriter w(k);
  k.name = name;
  const int a = AddTensor(k, "a", MemSpace::kHbm, DType::kF32, {n}, TensorInit{TensorInit::kRandn, 0, 1});
  const int b = AddTensor(k, "b", MemSpace::kHbm, DType::kF32, {n}, TensorInit{TensorInit::kRandn, 0, 2});
  const int out = AddTensor(k, "out", MemSpace::kHbm, DType::kF32, {n});
  const int at = AddTensor(k, "a_tile", MemSpace::kSbuf, DType::kF32, {partitions, buffers, free});
  const int bt = AddTensor(k, "b_tile", MemSpace::kSbuf, DType::kF32, {partitions, buffers, free});
  const int rt = AddTensor(k, "res", MemSpace::kSbuf, DType::kF32, {partitions, buffers, free});
  const int loaded = AddSemaphore(k, "loaded"), added = AddSemaphore(k, "added"), stored = AddSemaphore(k, "stored");
  const int64_t iterations = n / (partitions * free);
  for (int64_t i = 0; i < iterations; ++i) {
    const int64_t buf = i % buffers;
    auto hbm = [&](int t) { return Ap(k, t, i * partitions * free, {{free, partitions}, {1, free}}); };
    auto tile = [&](int t) { return Slice(k, t, {S::All(), S::At(buf)}); };
    Instruction& la = Dma(w, EngineId::kSync, tile(at), hbm(a));
    WaitFor(la, added, i - buffers + 1);  // the add that read this buffer has finished
    Signal(la, loaded);
    Signal(Dma(w, EngineId::kSync, tile(bt), hbm(b)), loaded);
    Instruction& add = w.Emit(EngineId::kVector, Opcode::kTensorTensor);
    add.dst = tile(rt);
    add.src0 = tile(at);
    add.src1 = tile(bt);
    add.alu0 = AluOp::kAdd;
    WaitFor(add, loaded, 2 * (i + 1));
    WaitFor(add, stored, i - buffers + 1);  // the store that read this result buffer has finished
    Signal(add, added);
    Instruction& st = Dma(w, EngineId::kGpSimd, hbm(out), tile(rt));
    WaitFor(st, added, i + 1);
    Signal(st, stored);
  }
  w.Flush();
  return k;
}

Kernel MatmulTiledKernel(const MatmulShape& s, int buffers) {
  Kernel k;
  StreamWriter w(k);
  k.name = "matmul_tiled";
  const MatmulTensors t = DeclareMatmul(k, s);
  const int64_t pbufs = std::min<int64_t>(buffers, 8);
  const int lt = AddTensor(k, "lhsT_tile", MemSpace::kSbuf, DType::kBF16, {kTileK, buffers, kTileM});
  const int rt = AddTensor(k, "rhs_tile", MemSpace::kSbuf, DType::kBF16, {kTileK, buffers, kTileN});
  const int ps = AddTensor(k, "res_psum", MemSpace::kPsum, DType::kF32, {kTileM, pbufs, kTileN});
  const int os = AddTensor(k, "res_sb", MemSpace::kSbuf, DType::kBF16, {kTileM, buffers, kTileN});
  const int loaded = AddSemaphore(k, "loaded"), mm = AddSemaphore(k, "mm"), copied = AddSemaphore(k, "copied"),
            stored = AddSemaphore(k, "stored");
  int64_t g = 0, tile = 0;
  for (int64_t m = 0; m < s.m / kTileM; ++m) {
    for (int64_t n = 0; n < s.n / kTileN; ++n, ++tile) {
      for (int64_t kk = 0; kk < s.k / kTileK; ++kk, ++g) {
        const int64_t buf = g % buffers;
        Instruction& ll = Dma(w, EngineId::kSync, Slice(k, lt, {S::All(), S::At(buf)}),
                              Hbm2d(k, t.lhsT, kk * kTileK, kTileK, m * kTileM, kTileM));
        WaitFor(ll, mm, g - buffers + 1);
        Signal(ll, loaded);
        Signal(Dma(w, EngineId::kSync, Slice(k, rt, {S::All(), S::At(buf)}),
                   Hbm2d(k, t.rhs, kk * kTileK, kTileK, n * kTileN, kTileN)),
               loaded);
        Instruction& mu = Matmul(w, Slice(k, ps, {S::All(), S::At(tile % pbufs)}), Slice(k, lt, {S::All(), S::At(buf)}),
                                 Slice(k, rt, {S::All(), S::At(buf)}), kk > 0);
        WaitFor(mu, loaded, 2 * (g + 1));
        if (kk == 0) WaitFor(mu, copied, tile - pbufs + 1);
        Signal(mu, mm);
      }
      CopyOutAndStore(k, w, t, ps, tile % pbufs, os, buffers, tile, g, m * kTileM, n * kTileN, mm, copied, stored);
    }
  }
  w.Flush();
  return k;
}

Kernel MatmulHoistKernel(const MatmulShape& s, int buffers) {
  Kernel k;
  StreamWriter w(k);
  k.name = "matmul_hoist_load";
  const MatmulTensors t = DeclareMatmul(k, s);
  const int64_t kt = s.k / kTileK, nt = s.n / kTileN;
  const int64_t pbufs = std::min<int64_t>(buffers, 8);
  const int row = AddTensor(k, "lhsT_row", MemSpace::kSbuf, DType::kBF16, {kTileK, buffers, kt, kTileM});
  const int rt = AddTensor(k, "rhs_tile", MemSpace::kSbuf, DType::kBF16, {kTileK, buffers, kTileN});
  const int ps = AddTensor(k, "res_psum", MemSpace::kPsum, DType::kF32, {kTileM, pbufs, kTileN});
  const int os = AddTensor(k, "res_sb", MemSpace::kSbuf, DType::kBF16, {kTileM, buffers, kTileN});
  const int lhs = AddSemaphore(k, "lhs_loaded"), rhs = AddSemaphore(k, "rhs_loaded"), mm = AddSemaphore(k, "mm"),
            copied = AddSemaphore(k, "copied"), stored = AddSemaphore(k, "stored");
  int64_t g = 0, tile = 0;
  for (int64_t m = 0; m < s.m / kTileM; ++m) {
    const int64_t hb = m % buffers;
    for (int64_t kk = 0; kk < kt; ++kk) {
      Instruction& ll = Dma(w, EngineId::kSync, Slice(k, row, {S::All(), S::At(hb), S::At(kk)}),
                            Hbm2d(k, t.lhsT, kk * kTileK, kTileK, m * kTileM, kTileM));
      if (kk == 0) WaitFor(ll, mm, (m - buffers + 1) * nt * kt);  // row m - buffers fully used
      Signal(ll, lhs);
    }
    for (int64_t n = 0; n < nt; ++n, ++tile) {
      for (int64_t kk = 0; kk < kt; ++kk, ++g) {
        const int64_t buf = g % buffers;
        Instruction& rl = Dma(w, EngineId::kSync, Slice(k, rt, {S::All(), S::At(buf)}),
                              Hbm2d(k, t.rhs, kk * kTileK, kTileK, n * kTileN, kTileN));
        WaitFor(rl, mm, g - buffers + 1);
        Signal(rl, rhs);
        Instruction& mu = Matmul(w, Slice(k, ps, {S::All(), S::At(tile % pbufs)}),
                                 Slice(k, row, {S::All(), S::At(hb), S::At(kk)}), Slice(k, rt, {S::All(), S::At(buf)}),
                                 kk > 0);
        WaitFor(mu, lhs, m * kt + kk + 1);
        WaitFor(mu, rhs, g + 1);
        if (kk == 0) WaitFor(mu, copied, tile - pbufs + 1);
        Signal(mu, mm);
      }
      CopyOutAndStore(k, w, t, ps, tile % pbufs, os, buffers, tile, g, m * kTileM, n * kTileN, mm, copied, stored);
    }
  }
  w.Flush();
  return k;
}

Kernel MatmulBlockKernel(const MatmulShape& s, int buffers) {
  constexpr int64_t kBm = 2, kBn = 2;
  Kernel k;
  StreamWriter w(k);
  k.name = "matmul_block_free_dims";
  const MatmulTensors t = DeclareMatmul(k, s);
  const int64_t pgroups = std::min<int64_t>(buffers, 8 / (kBm * kBn));  // PSUM: 8 banks of [128, 512] fp32
  const int lt = AddTensor(k, "lhsT_tiles", MemSpace::kSbuf, DType::kBF16, {kTileK, buffers, kBm, kTileM});
  const int rt = AddTensor(k, "rhs_tiles", MemSpace::kSbuf, DType::kBF16, {kTileK, buffers, kBn, kTileN});
  const int ps = AddTensor(k, "res_psum", MemSpace::kPsum, DType::kF32, {kTileM, pgroups * kBm * kBn, kTileN});
  const int os = AddTensor(k, "res_sb", MemSpace::kSbuf, DType::kBF16, {kTileM, buffers * kBm * kBn, kTileN});
  const int loaded = AddSemaphore(k, "loaded"), mm = AddSemaphore(k, "mm"), copied = AddSemaphore(k, "copied"),
            stored = AddSemaphore(k, "stored");
  int64_t g = 0, block = 0;
  for (int64_t mb = 0; mb < s.m / (kBm * kTileM); ++mb) {
    for (int64_t nb = 0; nb < s.n / (kBn * kTileN); ++nb, ++block) {
      const int64_t pg = block % pgroups;
      for (int64_t kk = 0; kk < s.k / kTileK; ++kk, ++g) {
        const int64_t buf = g % buffers;
        for (int64_t i = 0; i < kBm; ++i) {
          Instruction& ll = Dma(w, EngineId::kSync, Slice(k, lt, {S::All(), S::At(buf), S::At(i)}),
                                Hbm2d(k, t.lhsT, kk * kTileK, kTileK, (mb * kBm + i) * kTileM, kTileM));
          if (i == 0) WaitFor(ll, mm, (g - buffers + 1) * kBm * kBn);
          Signal(ll, loaded);
        }
        for (int64_t j = 0; j < kBn; ++j) {
          Signal(Dma(w, EngineId::kSync, Slice(k, rt, {S::All(), S::At(buf), S::At(j)}),
                     Hbm2d(k, t.rhs, kk * kTileK, kTileK, (nb * kBn + j) * kTileN, kTileN)),
                 loaded);
        }
        for (int64_t i = 0; i < kBm; ++i) {
          for (int64_t j = 0; j < kBn; ++j) {
            Instruction& mu = Matmul(w, Slice(k, ps, {S::All(), S::At(pg * kBm * kBn + i * kBn + j)}),
                                     Slice(k, lt, {S::All(), S::At(buf), S::At(i)}),
                                     Slice(k, rt, {S::All(), S::At(buf), S::At(j)}), kk > 0);
            WaitFor(mu, loaded, (kBm + kBn) * (g + 1));
            if (kk == 0 && i == 0 && j == 0) WaitFor(mu, copied, (block - pgroups + 1) * kBm * kBn);
            Signal(mu, mm);
          }
        }
      }
      for (int64_t i = 0; i < kBm; ++i) {
        for (int64_t j = 0; j < kBn; ++j) {
          const int64_t tile = block * kBm * kBn + i * kBn + j;
          CopyOutAndStore(k, w, t, ps, pg * kBm * kBn + i * kBn + j, os, buffers * kBm * kBn, tile, g * kBm * kBn,
                          (mb * kBm + i) * kTileM, (nb * kBn + j) * kTileN, mm, copied, stored);
        }
      }
    }
  }
  w.Flush();
  return k;
}

Kernel MatmulOptimisedKernel(const MatmulShape& s, int buffers) {
  constexpr int64_t kTm = 16, kTn = 2, kTk = 8;  // tiles per block
  constexpr int64_t kBlockM = kTm * kTileM, kBlockN = kTn * kTileN;
  Kernel k;
  StreamWriter w(k);
  k.name = "matmul_fully_optimised";
  const MatmulTensors t = DeclareMatmul(k, s);
  const int64_t nbm = s.m / kBlockM, nbn = s.n / kBlockN, nbk = s.k / (kTk * kTileK);
  // Modulo allocation within 192 KiB per partition: the result blocks (64 KiB)
  // once, the lhsT blocks (32 KiB) and rhs blocks (16 KiB) twice.
  const int64_t lbufs = std::min<int64_t>(buffers, 2), rbufs = std::min<int64_t>(buffers, 2);
  const int64_t pbufs = std::min<int64_t>(buffers, 8);
  const int lt = AddTensor(k, "lhsT_tiles", MemSpace::kSbuf, DType::kBF16, {kTileK, lbufs, kTk, kBlockM});
  const int rt = AddTensor(k, "rhs_tiles", MemSpace::kSbuf, DType::kBF16, {kTileK, rbufs, kTk, kBlockN});
  const int res = AddTensor(k, "result_tiles", MemSpace::kSbuf, DType::kBF16, {kTileM, nbm * kTm * kTn, kTileN});
  const int ps = AddTensor(k, "res_psum", MemSpace::kPsum, DType::kF32, {kTileM, pbufs, kTileN});
  const int lhs = AddSemaphore(k, "lhs_loaded"), rhs = AddSemaphore(k, "rhs_loaded"), mm = AddSemaphore(k, "mm"),
            red = AddSemaphore(k, "reduced"), stored = AddSemaphore(k, "stored");
  constexpr int64_t kMmPerLhs = kTm * kTn * kTk;
  const int64_t mm_per_rhs = nbm * kMmPerLhs;
  int64_t rhs_it = 0, lhs_it = 0, grp = 0;
  for (int64_t nb = 0; nb < nbn; ++nb) {
    Instruction& zero = w.Emit(EngineId::kVector, Opcode::kMemset);
    zero.dst = Full(k, res);
    zero.scalar0 = Imm(0);
    WaitFor(zero, stored, nb * nbm * kTm * kTn);  // the previous N block is stored
    for (int64_t kb = 0; kb < nbk; ++kb, ++rhs_it) {
      const int64_t rb = rhs_it % rbufs;
      for (int64_t bk = 0; bk < kTk; ++bk) {
        Instruction& rl = Dma(w, EngineId::kSync, Slice(k, rt, {S::All(), S::At(rb), S::At(bk)}),
                              Hbm2d(k, t.rhs, (kb * kTk + bk) * kTileK, kTileK, nb * kBlockN, kBlockN));
        if (bk == 0) WaitFor(rl, mm, (rhs_it - rbufs + 1) * mm_per_rhs);
        Signal(rl, rhs);
      }
      for (int64_t mb = 0; mb < nbm; ++mb, ++lhs_it) {
        const int64_t lb = lhs_it % lbufs;
        for (int64_t bk = 0; bk < kTk; ++bk) {
          Instruction& ll = Dma(w, EngineId::kSync, Slice(k, lt, {S::All(), S::At(lb), S::At(bk)}),
                                Hbm2d(k, t.lhsT, (kb * kTk + bk) * kTileK, kTileK, mb * kBlockM, kBlockM));
          if (bk == 0) WaitFor(ll, mm, (lhs_it - lbufs + 1) * kMmPerLhs);
          Signal(ll, lhs);
        }
        for (int64_t bn = 0; bn < kTn; ++bn) {
          for (int64_t bm = 0; bm < kTm; ++bm, ++grp) {
            const int64_t pb = grp % pbufs;
            for (int64_t bk = 0; bk < kTk; ++bk) {
              Instruction& mu = Matmul(
                  w, Slice(k, ps, {S::All(), S::At(pb)}),
                  Slice(k, lt, {S::All(), S::At(lb), S::At(bk), S::Range(bm * kTileM, (bm + 1) * kTileM)}),
                  Slice(k, rt, {S::All(), S::At(rb), S::At(bk), S::Range(bn * kTileN, (bn + 1) * kTileN)}), bk > 0);
              if (bk == 0) {
                WaitFor(mu, rhs, (rhs_it + 1) * kTk);
                WaitFor(mu, lhs, (lhs_it + 1) * kTk);
                WaitFor(mu, red, grp - pbufs + 1);  // the reduce that read this PSUM buffer
              }
              Signal(mu, mm);
            }
            Instruction& add = w.Emit(EngineId::kVector, Opcode::kTensorTensor);
            add.dst = add.src0 = Slice(k, res, {S::All(), S::At((mb * kTm + bm) * kTn + bn)});
            add.src1 = Slice(k, ps, {S::All(), S::At(pb)});
            add.alu0 = AluOp::kAdd;
            WaitFor(add, mm, (grp + 1) * kTk);
            Signal(add, red);
          }
        }
      }
    }
    for (int64_t mb = 0; mb < nbm; ++mb) {
      for (int64_t bm = 0; bm < kTm; ++bm) {
        for (int64_t bn = 0; bn < kTn; ++bn) {
          Instruction& st = Dma(w, EngineId::kGpSimd,
                                Hbm2d(k, t.out, mb * kBlockM + bm * kTileM, kTileM, nb * kBlockN + bn * kTileN, kTileN),
                                Slice(k, res, {S::All(), S::At((mb * kTm + bm) * kTn + bn)}));
          WaitFor(st, red, grp);
          Signal(st, stored);
        }
      }
    }
  }
  w.Flush();
  return k;
}

}  // namespace validation
}  // namespace nsim
