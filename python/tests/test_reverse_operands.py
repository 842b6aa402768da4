"""NKI's reverse0=/reverse1= flags (`operand op data` instead of `data op operand`) on tensor_scalar,
scalar_tensor_tensor and tensor_scalar_reduce, with non-commutative ops: the simulator's reversed ALU
rows (rsubtract, rdivide, rpow, rmod) and the mirrored comparisons, checked against NumPy. The NKI
Library's attention_bwd writes dsinks with scalar_tensor_tensor(op1=subtract, reverse1=True)."""
import numpy as np
import pytest
from nki_testing import f32

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import Unsupported

# nl op -> NumPy `operand op data`
REVERSED = {
    nl.subtract: lambda d, s: s - d, nl.divide: lambda d, s: s / d, nl.power: lambda d, s: np.power(s, d),
    nl.mod: lambda d, s: np.fmod(s, d), nl.greater: lambda d, s: f32(s > d), nl.less: lambda d, s: f32(s < d),
    nl.greater_equal: lambda d, s: f32(s >= d), nl.less_equal: lambda d, s: f32(s <= d),
}


@pytest.mark.parametrize("op", list(REVERSED), ids=lambda op: op.__name__)
def test_tensor_scalar_reverse0_both_forms(op, rng):
    a = (rng.integers(1, 9, size=(32, 24)) * np.where(rng.random((32, 24)) < 0.5, -1, 1)).astype(np.float32)
    if op is nl.power:
        a = np.abs(a) / 4  # 3 ** (x / 4) stays finite and exact enough to compare
    col = rng.integers(1, 9, size=(32, 1)).astype(np.float32)

    @nki.jit
    def k(a, col):
        x, c = nl.load(a), nl.load(col)
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        out2 = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=t, data=x, op0=op, operand0=3.0, reverse0=True)
        nl.store(out, value=t)
        nl.store(out2, value=nisa.tensor_scalar(data=x, op0=nl.add, operand0=0.0, op1=op, operand1=c,
                                                reverse1=True))
        return out, out2

    got, got2 = nki.simulate_kernel(k, a, col)
    np.testing.assert_allclose(got, REVERSED[op](a, np.float32(3)), rtol=1e-6)
    np.testing.assert_allclose(got2, REVERSED[op](a, col), rtol=1e-6)


def test_scalar_tensor_tensor_reverse1_subtract_as_attention_bwd(rng):
    """dsinks = dsinks - p * dy_sum: scalar_tensor_tensor(dst=acc, data=p, op0=multiply, operand0=col,
    op1=subtract, operand1=acc, reverse1=True), in place."""
    p, acc = rng.standard_normal((2, 64, 8)).astype(np.float32)
    col = rng.standard_normal((64, 1)).astype(np.float32)

    @nki.jit
    def k(p, acc, col):
        x, s, c = nl.load(p), nl.load(acc), nl.load(col)
        out = nl.ndarray(p.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        out2 = nl.ndarray(p.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nisa.scalar_tensor_tensor(s, data=x, op0=nl.multiply, operand0=c, op1=nl.subtract, operand1=s,
                                  reverse1=True)
        nl.store(out, value=s)
        nl.store(out2, value=nisa.scalar_tensor_tensor(data=x, op0=nl.subtract, operand0=1.0, op1=nl.divide,
                                                       operand1=s, reverse0=True, reverse1=True))
        return out, out2

    got, got2 = nki.simulate_kernel(k, p, acc, col)
    want = acc - p * col
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got2, want / (np.float32(1) - p), rtol=1e-6)


def test_tensor_scalar_reduce_reverse0(rng):
    a = rng.uniform(1, 4, size=(16, 40)).astype(np.float32)

    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        sums = nl.ndarray((a.shape[0], 1), dtype=nl.float32, buffer=nl.shared_hbm)
        s = nl.ndarray((a.shape[0], 1), dtype=nl.float32, buffer=nl.sbuf)
        t = nisa.tensor_scalar_reduce(data=nl.load(a), op0=nl.divide, operand0=1.0, reduce_op=nl.maximum,
                                      reduce_res=s, reverse0=True)
        nl.store(out, value=t)
        nl.store(sums, value=s)
        return out, sums

    out, m = nki.simulate_kernel(k, a)
    np.testing.assert_array_equal(out, np.float32(1) / a)
    np.testing.assert_array_equal(m[:, 0], (np.float32(1) / a).max(axis=1))


def test_reverse_of_a_shift_is_unsupported_at_the_kernel_line():
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.tensor_scalar(data=nl.load(a), op0=nl.left_shift, operand0=2, reverse0=True))
        return out

    with pytest.raises(Unsupported, match=r"test_reverse_operands.py:\d+.*reverse operands with left_shift"):
        nki.simulate_kernel(k, np.ones((4, 4), np.float32))
