"""nisa.range_select (VectorE opcode range_select, NeuronCore-v3+) against NumPy: each element's free index
+ range_start compared with two per-partition bounds keeps on_true or writes on_false_value, and the
optional reduce_res gets each row's reduction (the masked max of the NKI Library's attention kernels);
its cost max(MIN_II, N) (S11) on trn2's VectorE (0.96 GHz, pipeline latency 100 cycles)."""
import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import KernelError, Unsupported

FMIN = np.finfo(np.float32).min
CMP = {nl.greater_equal: np.greater_equal, nl.less: np.less, nl.greater: np.greater, nl.less_equal: np.less_equal}


def _reference(x, lo, hi, op0, op1, start, fill):
    idx = (np.arange(x.shape[1], dtype=np.float32) + np.float32(start))[None, :]
    keep = CMP[op0](idx, lo) & CMP[op1](idx, hi)
    return np.where(keep, x, np.float32(fill)).astype(np.float32)


def _kernel(op0, op1, start, fill, cmd=None):
    @nki.jit
    def k(a, lo, hi, before):
        x, b0, b1, acc = nl.load(a), nl.load(lo), nl.load(hi), nl.load(before)
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        red = nl.ndarray(before.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        d = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        kw = {} if cmd is None else {"reduce_cmd": cmd}
        nisa.range_select(dst=d, on_true_tile=x, comp_op0=op0, comp_op1=op1, bound0=b0, bound1=b1,
                          reduce_res=acc, reduce_op=nl.maximum, range_start=start, on_false_value=fill, **kw)
        nl.store(out, value=d)
        nl.store(red, value=acc)
        return out, red
    return k


def _bounds(rng, parts, n, start):
    lo = rng.integers(start - 4, start + n, (parts, 1)).astype(np.float32)
    hi = lo + rng.integers(0, n // 2, (parts, 1)).astype(np.float32)
    return lo, hi


@pytest.mark.parametrize("op0, op1, start", [(nl.greater_equal, nl.less, 0), (nl.greater, nl.less_equal, 512)])
def test_values_and_row_max_against_numpy(op0, op1, start, rng):
    a = rng.standard_normal((128, 96)).astype(np.float32)
    lo, hi = _bounds(rng, 128, 96, start)
    before = rng.standard_normal((128, 1)).astype(np.float32)
    got, red = nki.simulate_kernel(_kernel(op0, op1, start, FMIN), a, lo, hi, before, config="trn2")
    want = _reference(a, lo, hi, op0, op1, start, FMIN)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(red, want.max(axis=1, keepdims=True))
    assert (want == FMIN).any() and (want != FMIN).any()  # the bounds cut some rows, not all


def test_reduce_cmd_reduce_folds_into_what_reduce_res_holds(rng):
    a = rng.standard_normal((64, 40)).astype(np.float32)
    lo, hi = _bounds(rng, 64, 40, 0)
    before = rng.standard_normal((64, 1)).astype(np.float32) + 1
    _, red = nki.simulate_kernel(_kernel(nl.greater_equal, nl.less, 0, -5.0, nisa.reduce_cmd.reduce), a, lo, hi,
                                 before, config="trn2")
    want = _reference(a, lo, hi, nl.greater_equal, nl.less, 0, -5.0)
    np.testing.assert_array_equal(red, np.maximum(before, want.max(axis=1, keepdims=True)))


def test_beta1_form_returns_the_tile_with_fp32_min_fill(rng):
    a = rng.standard_normal((32, 16)).astype(np.float32)
    lo, hi = _bounds(rng, 32, 16, 3)

    @nki.jit
    def k(a, lo, hi):
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.range_select(on_true_tile=nl.load(a), comp_op0=nl.greater_equal, comp_op1=nl.less,
                                              bound0=nl.load(lo), bound1=nl.load(hi), range_start=3))
        return out
    got = nki.simulate_kernel(k, a, lo, hi, config="trn2")
    np.testing.assert_array_equal(got, _reference(a, lo, hi, nl.greater_equal, nl.less, 3, FMIN))


def test_trn1_has_no_range_select_and_reset_is_unsupported():
    z, c = np.zeros((8, 8), np.float32), np.zeros((8, 1), np.float32)
    with pytest.raises(KernelError, match="range_select needs NeuronCore-v3 or newer"):
        nki.simulate_kernel(_kernel(nl.greater_equal, nl.less, 0, 0.0), z, c, c, c, config="trn1")
    with pytest.raises(Unsupported, match=r"test_range_select.py:\d+.*reduce_cmd=reset with reduce_res"):
        nki.simulate_kernel(_kernel(nl.greater_equal, nl.less, 0, 0.0, nisa.reduce_cmd.reset), z, c, c, c,
                            config="trn2")


@pytest.mark.parametrize("n, cycles", [(512, 512), (16, 64)])  # S11: max(MIN_II, N)
def test_cost(n, cycles):
    a, c = np.ones((128, n), np.float32), np.ones((128, 1), np.float32)
    r = nki.benchmark(_kernel(nl.greater_equal, nl.less, 0, 0.0), a, c, c, c, config="trn2")
    got = [e - s for engine, _i, s, e, _w in r.instructions if engine == "vector"]
    assert got[0] == pytest.approx((cycles + 100) / 0.96, abs=0.01)
