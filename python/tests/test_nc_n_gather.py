"""nisa.nc_n_gather (GpSimd opcode nc_n_gather) against NumPy's take_along_axis over each partition's
flattened free dims; its cost ceil(M / 512) x GPSIMD_START + M x gpsimd.gather_per_elem (the docs' "n
groups", n = ceil(elems / 512); no documented rate: configs) on trn2's GpSimd (1.2 GHz, latency 8)."""
import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import KernelError


def _gather(m):
    @nki.jit
    def k(data, idx):
        d, i = nl.load(data), nl.load(idx)
        out_t = nl.ndarray(idx.shape, dtype=data.dtype, buffer=nl.sbuf)
        nisa.nc_n_gather(dst=out_t, data=d, indices=i)
        out = nl.ndarray(idx.shape, dtype=data.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=out_t)
        return out
    return k


def test_gather_within_each_partition(rng):
    data = rng.standard_normal((64, 4, 25)).astype(np.float32)  # free dims flattened: 100 per partition
    idx = rng.integers(0, 100, (64, 37)).astype(np.uint32)
    got = nki.simulate_kernel(_gather(37), data, idx, config="trn2")
    np.testing.assert_array_equal(got, np.take_along_axis(data.reshape(64, 100), idx.astype(np.int64), axis=1))


def test_index_outside_the_row_is_an_error():
    idx = np.zeros((4, 8), np.uint32)
    idx[2, 5] = 10
    with pytest.raises(KernelError, match=r"index 10 \(partition 2\) is outside data's 10 elements per partition"):
        nki.simulate_kernel(_gather(8), np.zeros((4, 10), np.float32), idx, config="trn2")


@pytest.mark.parametrize("m, cycles", [(100, 150 + 100), (1000, 2 * 150 + 1000)])
def test_cost_groups_of_512(m, cycles):
    r = nki.benchmark(_gather(m), np.ones((128, 64), np.float32), np.zeros((128, m), np.uint32), config="trn2")
    got = [e - s for engine, _i, s, e, _w in r.instructions if engine == "gpsimd"]
    assert got[0] == pytest.approx((cycles + 8) / 1.2, abs=0.01)
