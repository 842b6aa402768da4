"""The NKI matrix-multiplication tutorial (basic -> tiled -> hoisted loads ->
blocked free dims -> fully optimised), ported by changing the import lines:
outputs against NumPy and the device time of each step.

    python3 examples/nki/matmul.py [--config trn2] [--size 2048] [--out prof_matmul]
"""
import argparse

import ml_dtypes
import numpy as np

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl


@nki.jit
def nki_matmul_basic_(lhsT, rhs):
    """lhsT [64, 128], rhs [64, 512] -> [128, 512]: one matmul."""
    result = nl.ndarray((128, 512), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    i_lhsT_p, i_lhsT_f = nl.mgrid[0:64, 0:128]
    i_rhs_p, i_rhs_f = nl.mgrid[0:64, 0:512]
    i_out_p, i_out_f = nl.mgrid[0:128, 0:512]
    lhs_tile = nl.load(lhsT[i_lhsT_p, i_lhsT_f])
    rhs_tile = nl.load(rhs[i_rhs_p, i_rhs_f])
    result_psum = nl.matmul(lhs_tile, rhs_tile, transpose_x=True)
    result_sbuf = nl.copy(result_psum, dtype=result.dtype)
    nl.store(result[i_out_p, i_out_f], value=result_sbuf)
    return result


@nki.jit
def nki_matmul_tiled_(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_, "lhsT and rhs must have the same contraction dimension"
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    TILE_M = nl.tile_size.gemm_stationary_fmax  # 128
    TILE_K = nl.tile_size.pmax  # 128
    TILE_N = nl.tile_size.gemm_moving_fmax  # 512
    for m in nl.affine_range(M // TILE_M):
        for n in nl.affine_range(N // TILE_N):
            res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TILE_K):
                lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                lhsT_tile[...] = nl.load(lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
                rhs_tile[...] = nl.load(rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
                res_psum += nl.matmul(lhsT_tile[...], rhs_tile[...], transpose_x=True)
            res_sb = nl.copy(res_psum, dtype=result.dtype)
            nl.store(result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], value=res_sb)
    return result


@nki.jit
def nki_matmul_hoist_load_(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    TILE_M, TILE_K, TILE_N = 128, 128, 512
    i_lhsT = nl.mgrid[0:TILE_K, 0:TILE_M]
    i_rhs = nl.mgrid[0:TILE_K, 0:TILE_N]
    i_res = nl.mgrid[0:TILE_M, 0:TILE_N]
    for m in nl.affine_range(M // TILE_M):
        lhsT_tiles = nl.ndarray((K // TILE_K, nl.par_dim(TILE_K), TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(K // TILE_K):
            lhsT_tiles[k, i_lhsT.p, i_lhsT.x] = nl.load(lhsT[k * TILE_K + i_lhsT.p, m * TILE_M + i_lhsT.x])
        for n in nl.affine_range(N // TILE_N):
            rhs_tiles = nl.ndarray((K // TILE_K, nl.par_dim(TILE_K), TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(K // TILE_K):
                rhs_tiles[k, i_rhs.p, i_rhs.x] = nl.load(rhs[k * TILE_K + i_rhs.p, n * TILE_N + i_rhs.x])
            res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TILE_K):
                res_psum[...] += nl.matmul(lhsT_tiles[k, i_lhsT.p, i_lhsT.x], rhs_tiles[k, i_rhs.p, i_rhs.x],
                                           transpose_x=True)
            res_sb = nl.copy(res_psum, dtype=result.dtype)
            nl.store(result[m * TILE_M + i_res.p, n * TILE_N + i_res.x], value=res_sb)
    return result


@nki.jit
def nki_matmul_block_free_dimension_(lhsT, rhs):
    K, M = lhsT.shape
    K_, N = rhs.shape
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    TILE_M, TILE_K, TILE_N = 128, 128, 512
    TILES_IN_BLOCK_M, TILES_IN_BLOCK_N = 2, 2
    BLOCK_M, BLOCK_N = TILE_M * TILES_IN_BLOCK_M, TILE_N * TILES_IN_BLOCK_N
    i_lhsT = nl.mgrid[0:TILE_K, 0:BLOCK_M]
    i_rhs = nl.mgrid[0:TILE_K, 0:BLOCK_N]
    i_res = nl.mgrid[0:TILE_M, 0:TILE_N]
    for m in nl.affine_range(M // BLOCK_M):
        lhsT_tiles = nl.ndarray((K // TILE_K, nl.par_dim(TILE_K), BLOCK_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(K // TILE_K):
            lhsT_tiles[k, i_lhsT.p, i_lhsT.x] = nl.load(lhsT[k * TILE_K + i_lhsT.p, BLOCK_M * m + i_lhsT.x])
        for n in nl.affine_range(N // BLOCK_N):
            rhs_tiles = nl.ndarray((K // TILE_K, nl.par_dim(TILE_K), BLOCK_N), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(K // TILE_K):
                rhs_tiles[k, i_rhs.p, i_rhs.x] = nl.load(rhs[k * TILE_K + i_rhs.p, BLOCK_N * n + i_rhs.x])
            for bm in nl.affine_range(TILES_IN_BLOCK_M):
                for bn in nl.affine_range(TILES_IN_BLOCK_N):
                    res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
                    for k in nl.affine_range(K // TILE_K):
                        res_psum[...] += nl.matmul(lhsT_tiles[k, :, bm * TILE_M:(bm + 1) * TILE_M],
                                                   rhs_tiles[k, :, bn * TILE_N:(bn + 1) * TILE_N], transpose_x=True)
                    res_sb = nl.copy(res_psum, dtype=result.dtype)
                    nl.store(result[(TILES_IN_BLOCK_M * m + bm) * TILE_M + i_res.p,
                                    BLOCK_N * n + bn * TILE_N + i_res.x], value=res_sb)
    return result


@nki.jit
def nki_matmul_fully_optimized_(lhsT, rhs, TILES_IN_BLOCK_M=16, TILES_IN_BLOCK_N=2, TILES_IN_BLOCK_K=8):
    K, M = lhsT.shape
    K_, N = rhs.shape
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    TILE_M, TILE_K, TILE_N = 128, 128, 512
    BLOCK_M, BLOCK_N, BLOCK_K = TILE_M * TILES_IN_BLOCK_M, TILE_N * TILES_IN_BLOCK_N, TILE_K * TILES_IN_BLOCK_K
    NUM_BLOCK_M, NUM_BLOCK_N, NUM_BLOCK_K = M // BLOCK_M, N // BLOCK_N, K // BLOCK_K
    for n in nl.affine_range(NUM_BLOCK_N):
        result_tiles = nl.zeros((NUM_BLOCK_M, TILES_IN_BLOCK_M, TILES_IN_BLOCK_N, nl.par_dim(TILE_M), TILE_N),
                                dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.sequential_range(NUM_BLOCK_K):
            i_rhs = nl.mgrid[0:TILE_K, 0:BLOCK_N]
            rhs_tiles = nl.ndarray((TILES_IN_BLOCK_K, nl.par_dim(TILE_K), BLOCK_N), dtype=rhs.dtype, buffer=nl.sbuf)
            for bk_r in nl.affine_range(TILES_IN_BLOCK_K):
                rhs_tiles[bk_r, i_rhs.p, i_rhs.x] = nl.load(
                    rhs[(TILES_IN_BLOCK_K * k + bk_r) * TILE_K + i_rhs.p, BLOCK_N * n + i_rhs.x])
            for m in nl.affine_range(NUM_BLOCK_M):
                i_lhsT = nl.mgrid[0:TILE_K, 0:BLOCK_M]
                lhsT_tiles = nl.ndarray((TILES_IN_BLOCK_K, nl.par_dim(TILE_K), BLOCK_M), dtype=lhsT.dtype,
                                        buffer=nl.sbuf)
                for bk_l in nl.affine_range(TILES_IN_BLOCK_K):
                    lhsT_tiles[bk_l, i_lhsT.p, i_lhsT.x] = nl.load(
                        lhsT[(TILES_IN_BLOCK_K * k + bk_l) * TILE_K + i_lhsT.p, BLOCK_M * m + i_lhsT.x])
                i_lhsT_mm = nl.mgrid[0:TILE_K, 0:TILE_M]
                i_rhs_mm = nl.mgrid[0:TILE_K, 0:TILE_N]
                i_res_mm = nl.mgrid[0:TILE_M, 0:TILE_N]
                for bn in nl.affine_range(TILES_IN_BLOCK_N):
                    for bm in nl.affine_range(TILES_IN_BLOCK_M):
                        res_tile = nl.zeros((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
                        for bk in nl.affine_range(TILES_IN_BLOCK_K):
                            res_tile[...] += nisa.nc_matmul(lhsT_tiles[bk, i_lhsT_mm.p, bm * TILE_M + i_lhsT_mm.x],
                                                            rhs_tiles[bk, i_rhs_mm.p, bn * TILE_N + i_rhs_mm.x])
                        result_tiles[m, bm, bn, i_res_mm.p, i_res_mm.x] += res_tile[i_res_mm.p, i_res_mm.x]
        for m in nl.affine_range(NUM_BLOCK_M):
            for bm in nl.affine_range(TILES_IN_BLOCK_M):
                i_res = nl.mgrid[0:TILE_K, 0:TILE_N]
                i_res_packed = nl.mgrid[0:TILE_K, 0:BLOCK_N]
                result_packed = nl.ndarray((TILE_K, BLOCK_N), dtype=result_tiles.dtype, buffer=nl.sbuf)
                for bn in nl.affine_range(TILES_IN_BLOCK_N):
                    result_packed[i_res.p, bn * TILE_N + i_res.x] = nl.copy(result_tiles[m, bm, bn, i_res.p, i_res.x])
                nl.store(result[(TILES_IN_BLOCK_M * m + bm) * TILE_K + i_res_packed.p, BLOCK_N * n + i_res_packed.x],
                         value=result_packed[i_res_packed.p, i_res_packed.x])
    return result


STEPS = (nki_matmul_tiled_, nki_matmul_hoist_load_, nki_matmul_block_free_dimension_, nki_matmul_fully_optimized_)


def reference(lhsT, rhs, block_k=None):
    """lhsT^T @ rhs rounded to bf16; with block_k, accumulated per K block into bf16 as the fully
    optimised kernel's result tiles do: bf16(bf16(P0) + P1) + ..."""
    f32 = np.float32
    block_k = block_k or lhsT.shape[0]
    acc = None
    for k in range(0, lhsT.shape[0], block_k):
        p = lhsT[k:k + block_k].astype(f32).T @ rhs[k:k + block_k].astype(f32)
        acc = (p if acc is None else acc.astype(f32) + p).astype(lhsT.dtype)
    return acc


def check(kernel, lhsT, rhs, config, out=None):
    r = nki.benchmark(kernel, lhsT, rhs, config=config, out_dir=out)
    ref = reference(lhsT, rhs, 1024 if kernel is nki_matmul_fully_optimized_ else None).astype(np.float32)
    # bf16 results differ from NumPy's by rounding flips (summation order): one bf16 ulp of the
    # largest value is 2^-8 = 0.4 % of it
    err = np.max(np.abs(r.outputs.astype(np.float32) - ref)) / np.max(np.abs(ref))
    return r, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="trn2")
    ap.add_argument("--size", type=int, default=2048, help="M = N = K (a multiple of 2048)")
    ap.add_argument("--out", default=None, help="profile directory of the fully optimised kernel")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    lhsT = rng.standard_normal((64, 128)).astype(ml_dtypes.bfloat16)
    rhs = rng.standard_normal((64, 512)).astype(ml_dtypes.bfloat16)
    print("%-34s %16s %13s  (bf16 on %s)" % ("kernel", "M x N x K", "device time", args.config))
    r, err = check(nki_matmul_basic_, lhsT, rhs, args.config)
    print("%-34s %16s %10.3f us  max err/max %.1e" % ("nki_matmul_basic_", "128x512x64", r.device_time_us, err))
    if err > 1e-2:
        raise SystemExit("nki_matmul_basic_: output does not match NumPy")
    s = args.size
    lhsT = rng.standard_normal((s, s)).astype(ml_dtypes.bfloat16)
    rhs = rng.standard_normal((s, s)).astype(ml_dtypes.bfloat16)
    for kernel in STEPS:
        out = args.out if kernel is STEPS[-1] else None
        r, err = check(kernel, lhsT, rhs, args.config, out)
        flops = 2.0 * s ** 3
        print("%-34s %16s %10.3f us  max err/max %.1e  %6.1f TFLOP/s  TensorE util %5.1f%%"
              % (kernel.__name__, "%dx%dx%d" % (s, s, s), r.device_time_us, err, flops / r.device_time_ns / 1e3,
                 r.engines["TensorE"]["active_time_percent"]))
        if err > 1e-2:
            raise SystemExit("%s: output does not match NumPy" % kernel.__name__)


if __name__ == "__main__":
    main()
