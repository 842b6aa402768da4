"""nisa.nonzero_with_count (GpSimd opcode nonzero_with_count) against NumPy: only partitions 0, 16, ..., 112
(each GpSimd core's 0-th) are read and written, as the nki.isa docs state; its cost GPSIMD_START +
N x gpsimd.nonzero_per_elem (configs: no documented cost) on trn2's GpSimd (1.2 GHz, pipeline latency 8)."""
import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import KernelError

PAD = -7


def _reference(a, before, offset):
    out = before.copy()
    for p in range(0, a.shape[0], 16):
        idx = np.flatnonzero(a[p]) + offset
        out[p, :len(idx)] = idx
        out[p, len(idx):-1] = PAD
        out[p, -1] = len(idx)
    return out


def _kernel(offset):
    @nki.jit
    def k(a, before):
        x, d = nl.load(a), nl.load(before)
        nisa.nonzero_with_count(dst=d, src=x, index_offset=offset, padding_val=PAD)
        out = nl.ndarray(before.shape, dtype=nl.int32, buffer=nl.shared_hbm)
        nl.store(out, value=d)
        return out
    return k


@pytest.mark.parametrize("offset", [0, 4096])
def test_indices_padding_count_on_each_cores_partition(offset, rng):
    a = (rng.random((128, 40)) < 0.3).astype(np.float32) * rng.standard_normal((128, 40)).astype(np.float32)
    a[16] = 0  # a partition with no non-zero element: all padding, count 0
    a[32] = 1  # all non-zero
    before = rng.integers(1000, 2000, (128, 41)).astype(np.int32)  # the partitions no core writes keep these
    got = nki.simulate_kernel(_kernel(offset), a, before, config="trn2")
    np.testing.assert_array_equal(got, _reference(a, before, offset))


def test_trn1_has_no_nonzero_with_count():
    with pytest.raises(KernelError, match="nonzero_with_count needs NeuronCore-v3 or newer"):
        nki.simulate_kernel(_kernel(0), np.zeros((16, 8), np.float32), np.zeros((16, 9), np.int32), config="trn1")


def test_dst_must_have_one_more_column():
    @nki.jit
    def k(a):
        x = nl.load(a)
        nisa.nonzero_with_count(dst=x, src=x)
    with pytest.raises(KernelError, match=r"dst .* must be \[16, 9\] on src's partitions"):
        nki.simulate_kernel(k, np.zeros((16, 8), np.float32), config="trn2")


@pytest.mark.parametrize("n", [64, 1000])
def test_cost_gpsimd_start_plus_n(n):
    """150 + N GpSimd cycles at 1.2 GHz, + 8 cycles pipeline latency (configs/trn2.yaml)."""
    r = nki.benchmark(_kernel(0), np.ones((128, n), np.float32), np.zeros((128, n + 1), np.int32), config="trn2")
    got = [e - s for engine, _i, s, e, _w in r.instructions if engine == "gpsimd"]
    assert got[0] == pytest.approx((150 + n + 8) / 1.2, abs=0.01)
