"""NKI 0.3's nc_matmul(dst, ..., accumulate=None): a matmul adds into dst only where that region was
written since the tile was allocated (its accumulation group); a matmul into another column block of
the same PSUM tile starts a group of its own. The NKI Library's rotational topk writes a [128, 1024]
PSUM tile as two 512-column matmuls: taking the tile-wide "written" flag for the second block added
the previous row tile's stale PSUM to it (wrong values from the second iteration on)."""
import numpy as np

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl


@nki.jit
def two_column_blocks_per_iteration(lhsT, rhs):
    out = nl.ndarray((rhs.shape[0] // 128 * 128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    stationary = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=stationary, src=lhsT)
    for t in nl.sequential_range(rhs.shape[0] // 128):
        moving = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=moving, src=rhs[nl.ds(t * 128, 128), :])
        acc = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.psum)
        for j in nl.affine_range(2):
            nisa.nc_matmul(acc[:, nl.ds(j * 512, 512)], stationary, moving[:, nl.ds(j * 512, 512)])
        res = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=res, src=acc)
        nisa.dma_copy(dst=out[nl.ds(t * 128, 128), :], src=res)
    return out


def test_each_column_block_starts_its_own_accumulation_group():
    rng = np.random.default_rng(6)
    lhsT = rng.standard_normal((128, 128)).astype(np.float32)
    rhs = rng.standard_normal((10 * 128, 1024)).astype(np.float32)  # more iterations than PSUM buffers
    out = np.asarray(two_column_blocks_per_iteration(lhsT, rhs))
    expect = np.concatenate([lhsT.T.astype(np.float64) @ rhs[t * 128:(t + 1) * 128] for t in range(10)])
    np.testing.assert_allclose(out, expect, rtol=1e-4, atol=1e-3)


@nki.jit
def one_group_over_k(lhsT, rhs):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(lhsT.shape[0] // 128):
        a = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        b = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=lhsT[nl.ds(k * 128, 128), :])
        nisa.dma_copy(dst=b, src=rhs[nl.ds(k * 128, 128), :])
        nisa.nc_matmul(acc, a, b)
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


def test_matmuls_into_the_same_region_accumulate():
    rng = np.random.default_rng(7)
    lhsT = rng.standard_normal((3 * 128, 128)).astype(np.float32)
    rhs = rng.standard_normal((3 * 128, 512)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(one_group_over_k(lhsT, rhs)), lhsT.T.astype(np.float64) @ rhs,
                               rtol=1e-4, atol=1e-3)
