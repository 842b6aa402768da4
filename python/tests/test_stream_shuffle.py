"""nisa.nc_stream_shuffle (VectorE opcode nc_stream_shuffle) against NumPy: per 32-partition quadrant, dst
partition j copies src partition shuffle_mask[j] (255: unmodified); affine masks are modelled, others raise
nki.Unsupported. Cost max(MIN_II, N) (S11) on trn1's VectorE (1.12 GHz, MIN_II 64, latency 100)."""
import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import KernelError, Unsupported


def _reference(src, before, mask):
    out = before.copy()
    for i in range(before.shape[0]):
        q, j = divmod(i, 32)
        if mask[j] != 255:
            out[i] = src[32 * q + mask[j]]
    return out


def _shuffle(mask):
    @nki.jit
    def k(src, before):
        s, d = nl.load(src), nl.load(before)
        nisa.nc_stream_shuffle(dst=d, src=s, shuffle_mask=mask)
        out = nl.ndarray(before.shape, dtype=before.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=d)
        return out
    return k


MASKS = {"broadcast": [0] * 32, "reverse": list(range(31, -1, -1)), "one": [16] + [255] * 31,
         "shift_half": list(range(8, 24)) + [255] * 16, "window": [255] * 5 + list(range(10)) + [255] * 17}


@pytest.mark.parametrize("name", sorted(MASKS))
def test_affine_masks_per_quadrant(name, rng):
    src = rng.standard_normal((128, 10)).astype(np.float32)
    before = rng.standard_normal((128, 10)).astype(np.float32)
    got = nki.simulate_kernel(_shuffle(MASKS[name]), src, before)
    np.testing.assert_array_equal(got, _reference(src, before, MASKS[name]))


def test_broadcast_of_one_partition(rng):
    """The NKI Library's stream_shuffle_broadcast: src[0:1] to up to 32 dst partitions."""
    src = rng.standard_normal((1, 6)).astype(np.float32)

    @nki.jit
    def k(src):
        s = nl.load(src)
        d = nl.ndarray((20, 6), dtype=nl.float32, buffer=nl.sbuf)
        nisa.nc_stream_shuffle(src=s[0:1, :], dst=d, shuffle_mask=[0] * 32)
        out = nl.ndarray((20, 6), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=d)
        return out
    np.testing.assert_array_equal(k(src), np.repeat(src, 20, axis=0))


def test_a_mask_that_is_not_affine_is_unsupported_and_bad_ones_are_errors():
    src = np.zeros((32, 4), np.float32)
    with pytest.raises(Unsupported, match=r"shuffle_mask \[3, 1, 2.*is not modelled"):
        nki.simulate_kernel(_shuffle([3, 1, 2] + [255] * 29), src, src)
    with pytest.raises(KernelError, match="shuffle_mask must be a list of 32 integers"):
        nki.simulate_kernel(_shuffle([0] * 8), src, src)
    with pytest.raises(KernelError, match="would copy src partition 8, outside its quadrant of src's 4"):
        nki.simulate_kernel(_shuffle([8] * 32), np.zeros((4, 4), np.float32), src)


@pytest.mark.parametrize("n, cycles", [(512, 512), (16, 64)])  # S11: max(MIN_II, N)
def test_cost(n, cycles):
    r = nki.benchmark(_shuffle([0] * 32), np.ones((128, n), np.float32), np.ones((128, n), np.float32),
                      config="trn1")
    got = [e - s for engine, _i, s, e, _w in r.instructions if engine == "vector"]
    assert got[0] == pytest.approx((cycles + 100) / 1.12, abs=0.01)
