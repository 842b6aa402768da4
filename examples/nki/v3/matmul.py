"""Tiled matmul in NKI 0.3+ style: C[M, N] = A_T[K, M]^T @ B[K, N], bf16 inputs, K accumulated in
one PSUM tile per output tile (nc_matmul accumulates within its group), copied out through SBUF."""
import nki
import nki.isa as nisa
import nki.language as nl
import numpy as np

TILE_K, TILE_M, TILE_N = 128, 128, 512


@nki.jit
def matmul(a_t, b):
    k, m = a_t.shape
    _, n = b.shape
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    for mi in nl.affine_range(m // TILE_M):
        for ni in nl.affine_range(n // TILE_N):
            acc = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
            for ki in nl.sequential_range(k // TILE_K):
                lhs = nl.ndarray((TILE_K, TILE_M), dtype=a_t.dtype, buffer=nl.sbuf)
                rhs = nl.ndarray((TILE_K, TILE_N), dtype=b.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=lhs, src=a_t[nl.ds(ki * TILE_K, TILE_K), nl.ds(mi * TILE_M, TILE_M)])
                nisa.dma_copy(dst=rhs, src=b[nl.ds(ki * TILE_K, TILE_K), nl.ds(ni * TILE_N, TILE_N)])
                nisa.nc_matmul(dst=acc, stationary=lhs, moving=rhs)
            res = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc)
            nisa.dma_copy(dst=out[nl.ds(mi * TILE_M, TILE_M), nl.ds(ni * TILE_N, TILE_N)], src=res)
    return out


if __name__ == "__main__":
    import ml_dtypes
    rng = np.random.default_rng(0)
    a_t = rng.standard_normal((256, 128)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((256, 512)).astype(ml_dtypes.bfloat16)
    ref = a_t.astype(np.float32).T @ b.astype(np.float32)
    print("matmul: max abs error vs NumPy %.3g" % np.max(np.abs(matmul(a_t, b) - ref)))
