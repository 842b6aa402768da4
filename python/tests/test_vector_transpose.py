"""nisa.nc_transpose(engine=vector): VectorE's 32x32 transpose (opcode transpose on VectorE) against NumPy,
both forms, into SBUF; its cost max(MIN_II, N) (S11) on trn2's VectorE (0.96 GHz, pipeline latency 100
cycles); more than 32x32 is an error at the kernel's line. The NKI Library's attention_tkg transposes
[<=32, 1] columns this way while TensorE is busy."""
import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import KernelError


def _kernel(shape, beta1=False):
    @nki.jit
    def k(a):
        x = nl.load(a)
        out = nl.ndarray(shape[::-1], dtype=a.dtype, buffer=nl.shared_hbm)
        if beta1:
            t = nisa.nc_transpose(x, engine=nisa.vector_engine)
        else:
            t = nl.ndarray(shape[::-1], dtype=a.dtype, buffer=nl.sbuf)
            nisa.nc_transpose(t, x, engine=nisa.vector_engine)
        nl.store(out, value=t)
        return out
    return k


@pytest.mark.parametrize("shape", [(32, 32), (7, 1), (16, 24)])
@pytest.mark.parametrize("beta1", [False, True])
def test_values(shape, beta1, rng):
    a = rng.standard_normal(shape).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(_kernel(shape, beta1), a, config="trn2"), a.T)


@pytest.mark.parametrize("f, cycles", [(32, 64), (16, 64)])  # S11: max(MIN_II, N), N <= 32 < MIN_II
def test_cost(f, cycles):
    r = nki.benchmark(_kernel((32, f)), np.ones((32, f), np.float32), config="trn2")
    got = [e - s for engine, _i, s, e, _w in r.instructions if engine == "vector"]
    assert got[0] == pytest.approx((cycles + 100) / 0.96, abs=0.01)


def test_more_than_32x32_is_an_error():
    with pytest.raises(KernelError, match=r"test_vector_transpose.py:\d+.*at most 32x32"):
        nki.simulate_kernel(_kernel((64, 8)), np.zeros((64, 8), np.float32), config="trn2")
