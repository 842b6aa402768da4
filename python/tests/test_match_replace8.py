"""nisa.nc_match_replace8 (VectorE opcode nc_match_replace8), both forms, against NumPy; the duplicate-vals
pairing of it and nc_find_index8 as the nki.isa docs (v2.32) state it; its cost from S11 (docs/isa.md):
max(MIN_II, N) on trn1's VectorE (1.12 GHz, MIN_II 64 cycles, pipeline latency 100 cycles)."""
import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import KernelError


def _topk_by_replace(a, k):
    """The NKI Library's top-k pattern: max8, then nc_match_replace8 knocks those 8 out, k / 8 times."""
    @nki.jit
    def kern(a):
        x = nl.load(a)
        vals = nl.ndarray((a.shape[0], k), dtype=nl.float32, buffer=nl.sbuf)
        idx = nl.ndarray((a.shape[0], k), dtype=nl.uint32, buffer=nl.sbuf)
        for f in nl.static_range(k // 8):
            nisa.max8(dst=vals[:, nl.ds(8 * f, 8)], src=x)
            nisa.nc_match_replace8(dst=x, data=x, vals=vals[:, nl.ds(8 * f, 8)], imm=float("-inf"),
                                   dst_idx=idx[:, nl.ds(8 * f, 8)])
        out_v = nl.ndarray((a.shape[0], k), dtype=nl.float32, buffer=nl.shared_hbm)
        out_i = nl.ndarray((a.shape[0], k), dtype=nl.uint32, buffer=nl.shared_hbm)
        out_x = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out_v, value=vals)
        nl.store(out_i, value=idx)
        nl.store(out_x, value=x)
        return out_v, out_i, out_x
    return kern(a)


def test_topk_by_max8_and_match_replace8(rng):
    a = rng.permutation(32 * 300).reshape(32, 300).astype(np.float32)  # distinct: one position each
    vals, idx, rest = _topk_by_replace(a, 16)
    want = np.argsort(-a, axis=1)[:, :16]
    np.testing.assert_array_equal(idx, want)
    np.testing.assert_array_equal(vals, np.take_along_axis(a, want, axis=1))
    expect = a.copy()
    np.put_along_axis(expect, want, -np.inf, axis=1)
    np.testing.assert_array_equal(rest, expect)


DOC_DATA = [1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8]  # nki.isa.nc_match_replace8 docs (v2.32), duplicate vals example
DOC_VALS = [3, 8, 8, 8, 8, 8, 8, 8]


def test_duplicate_vals_pair_with_distinct_positions():
    """match_replace8 takes vals from the last (positions descending across the duplicates' columns),
    find_index8 from the first (ascending): the docs' example, [2, 10, 9, ..., 4] and [2, 4, 5, ..., 10]."""
    data = np.array([DOC_DATA] * 2, np.float32)
    vals = np.array([DOC_VALS] * 2, np.float32)

    @nki.jit
    def k(data, vals):
        x, v = nl.load(data), nl.load(vals)
        replaced = nl.ndarray(data.shape, dtype=nl.float32, buffer=nl.sbuf)
        mr = nl.ndarray((2, 8), dtype=nl.uint32, buffer=nl.sbuf)
        nisa.nc_match_replace8(dst=replaced, data=x, vals=v, imm=0.5, dst_idx=mr)
        fi = nl.ndarray((2, 8), dtype=nl.uint32, buffer=nl.sbuf)
        nisa.nc_find_index8(dst=fi, data=x, vals=v)
        outs = [nl.ndarray(t.shape, dtype=t.dtype, buffer=nl.shared_hbm) for t in (replaced, mr, fi)]
        for o, t in zip(outs, (replaced, mr, fi)):
            nl.store(o, value=t)
        return tuple(outs)
    replaced, mr, fi = k(data, vals)
    np.testing.assert_array_equal(mr[0], [2, 10, 9, 8, 7, 6, 5, 4])
    np.testing.assert_array_equal(fi[0], [2, 4, 5, 6, 7, 8, 9, 10])
    np.testing.assert_array_equal(replaced[1], [1, 2, 0.5, 4] + [0.5] * 7)


def test_beta1_form_returns_the_replaced_tile(rng):
    a = rng.permutation(8 * 20).reshape(8, 20).astype(np.float32)

    @nki.jit
    def k(a):
        x = nl.load(a)
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.nc_match_replace8(data=x, vals=nisa.max8(src=x), imm=-1.0))
        return out
    expect = a.copy()
    np.put_along_axis(expect, np.argsort(-a, axis=1)[:, :8], -1.0, axis=1)
    np.testing.assert_array_equal(k(a), expect)


def test_bad_shapes_and_imm_are_errors_at_the_call():
    def run(body, shape=(4, 16)):
        @nki.jit
        def k(a):
            body(nl.load(a))
        k(np.zeros(shape, np.float32))

    def vals_not_8(x):
        nisa.nc_match_replace8(dst=x, data=x, vals=x[:, 0:5], imm=0.0)
    with pytest.raises(KernelError, match=r"vals .* must be \[4, 8\], got \[4, 5\]"):
        run(vals_not_8)

    def idx_not_8(x):
        idx = nl.ndarray((4, 6), dtype=nl.uint32, buffer=nl.sbuf)
        nisa.nc_match_replace8(dst=x, data=x, vals=x[:, 0:8], imm=0.0, dst_idx=idx)
    with pytest.raises(KernelError, match=r"idx .* must be \[4, 8\], got \[4, 6\]"):
        run(idx_not_8)

    def imm_tile(x):
        nisa.nc_match_replace8(dst=x, data=x, vals=x[:, 0:8], imm=x[:, 0:1])
    with pytest.raises(KernelError, match="nisa.nc_match_replace8: imm must be a number"):
        run(imm_tile)


@pytest.mark.parametrize("n, cycles", [(512, 512), (32, 64)])  # S11: N, at least MIN_II = 64
def test_cost_match_replace8(n, cycles):
    @nki.jit
    def k(a):
        x = nl.load(a)
        vals = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=vals, src=x[:, 0:8], engine=nisa.gpsimd_engine)
        nisa.nc_match_replace8(dst=x, data=x, vals=vals, imm=0.0)
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=x)
        return out
    r = nki.benchmark(k, np.ones((128, n), np.float32), config="trn1")
    got = [e - s for engine, _i, s, e, _w in r.instructions if engine == "vector"]
    assert got == [pytest.approx((cycles + 100) / 1.12, abs=0.01)]
