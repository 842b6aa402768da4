"""nisa.bn_stats / nisa.bn_aggr (the VectorE statistics opcodes), both forms, against NumPy; their cost
from S11 (docs/isa.md): bn_stats max(MIN_II, N), bn_aggr max(MIN_II, 13 * N / 3), on trn1's VectorE
(1.12 GHz, MIN_II 64 cycles, pipeline latency 100 cycles)."""
import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import KernelError


def _moments(x):
    return [len(x), x.mean() if len(x) else 0.0, ((x - x.mean()) ** 2).sum() if len(x) else 0.0]


def _stats_reference(a):
    rows = [_moments(r[0::2].astype(np.float64)) + _moments(r[1::2].astype(np.float64)) for r in a]
    return np.array(rows, np.float32)


@pytest.mark.parametrize("n", [1, 7, 512])
def test_bn_stats_even_and_odd_triples(n, rng):
    a = rng.standard_normal((32, n)).astype(np.float32) * 3 + 1

    @nki.jit
    def k(a):
        out = nl.ndarray((a.shape[0], 6), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.bn_stats(nl.load(a)))
        return out
    np.testing.assert_allclose(k(a), _stats_reference(a), rtol=2e-6, atol=1e-5)


def test_bn_stats_then_aggr_is_mean_and_variance_of_the_whole_row(rng):
    """layernorm's pattern (0.3+ dst= form): bn_stats per 512-column chunk into one stats tile, one
    bn_aggr over all the chunks' triples."""
    a = rng.standard_normal((128, 1300)).astype(np.float32) * 2 - 5
    chunks = [(c, min(512, a.shape[1] - c)) for c in range(0, a.shape[1], 512)]

    @nki.jit
    def k(a):
        x = nl.load(a)
        stats = nl.ndarray((128, 6 * len(chunks)), dtype=nl.float32, buffer=nl.sbuf)
        for j, (c, n) in enumerate(chunks):
            nisa.bn_stats(dst=stats[:, 6 * j:6 * (j + 1)], data=x[:, c:c + n])
        mv = nl.ndarray((128, 2), dtype=nl.float32, buffer=nl.sbuf)
        nisa.bn_aggr(dst=mv, data=stats)
        out = nl.ndarray((128, 2), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=mv)
        return out
    got = k(a)
    np.testing.assert_allclose(got[:, 0], a.astype(np.float64).mean(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[:, 1], a.astype(np.float64).var(axis=1), rtol=1e-5)


def test_bn_stats_under_a_beta1_mask_cuts_the_data_only(rng):
    """The layernorm tutorial's last chunk: mask=(j * fmax + i_f < n) cuts the data, not the [P, 6] result."""
    a = rng.standard_normal((16, 20)).astype(np.float32)

    @nki.jit
    def k(a):
        x = nl.load(a)
        i_f = nl.arange(16)[None, :]
        out = nl.ndarray((16, 6), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.bn_stats(x[:, 16 + i_f], mask=(16 + i_f < 20)))
        return out
    np.testing.assert_allclose(k(a), _stats_reference(a[:, 16:20]), rtol=2e-6, atol=1e-6)


def test_bn_stats_over_fmax_and_bad_aggr_input_are_errors():
    @nki.jit
    def too_wide(a):
        nisa.bn_stats(nl.load(a))
    with pytest.raises(KernelError, match=r"bn_stats takes at most 512 \(vector.bn_stats_fmax\)"):
        too_wide(np.zeros((4, 600), np.float32))

    @nki.jit
    def not_triples(a):
        nisa.bn_aggr(nl.load(a))
    with pytest.raises(KernelError, match="bn_aggr reads \\(count, mean, variance \\* count\\) triples"):
        not_triples(np.zeros((4, 7), np.float32))

    @nki.jit
    def bad_dst(a):
        x = nl.load(a)
        nisa.bn_stats(dst=x[:, 0:5], data=x)
    with pytest.raises(KernelError, match=r"nisa.bn_stats: dst must be \[4, 6\]"):
        bad_dst(np.zeros((4, 8), np.float32))


def test_tile_size_bn_stats_fmax_is_the_configs():
    assert nl.tile_size.bn_stats_fmax == 512


def _vector_durations(fn, a):
    @nki.jit
    def k(a):
        res = fn(nl.load(a))
        out = nl.ndarray(res.shape, dtype=res.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=res)
        return out
    r = nki.benchmark(k, a, config="trn1")
    return [e - s for engine, _i, s, e, _w in r.instructions if engine == "vector"]


@pytest.mark.parametrize("n, cycles", [(512, 512), (32, 64)])  # S11 "max(MIN_II, N)"
def test_cost_bn_stats(n, cycles):
    got = _vector_durations(nisa.bn_stats, np.ones((128, n), np.float32))
    assert got[0] == pytest.approx((cycles + 100) / 1.12, abs=0.01)


@pytest.mark.parametrize("n, cycles", [(48, 13 * 16), (12, 64)])  # S11 "max(MIN_II, 13 * (N / 3))"
def test_cost_bn_aggr(n, cycles):
    got = _vector_durations(nisa.bn_aggr, np.ones((128, n), np.float32))
    assert got[0] == pytest.approx((cycles + 100) / 1.12, abs=0.01)
