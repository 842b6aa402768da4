"""Beta 1 forms published kernels use (issues 23/24), lowered onto the simulator's existing opcodes:
nl.floor/ceil/trunc/where, nc_matmul(is_transpose=True), affine_select(pred=...), iota over an
nl.mgrid, mod_alloc blocks mapped modulo onto physical tiles, and reversed (negative-step) indices.
Each is checked against NumPy with kernels written here; costs are the opcodes' (trn1: VectorE
1.12 GHz, MIN_II 64 cycles, pipeline latency 100 cycles; docs/isa.md)."""
import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.compiler as ncc
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import KernelError


def _run_unary(fn, a, out_dtype=nl.float32):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=out_dtype, buffer=nl.shared_hbm)
        nl.store(out, value=fn(nl.load(a)))
        return out
    return nki.simulate_kernel(k, a)


# ------------------------------------------------------------------ nl.floor / ceil / trunc / where
EDGES = np.array([-3.7, -3.0, -2.5, -0.5, -1e-7, -0.0, 0.0, 1e-7, 0.5, 2.5, 3.0, 3.7, -1e6 - 0.5, 8388607.5],
                 np.float32)


@pytest.mark.parametrize("name, ref", [("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc)])
def test_rounding_matches_numpy(name, ref, rng):
    a = np.concatenate([np.tile(EDGES, (8, 1)), (rng.standard_normal((8, 14)) * 100).astype(np.float32)])
    got = _run_unary(getattr(nl, name), a)
    np.testing.assert_array_equal(got, ref(a))


def test_floor_to_int32_is_exact_where_a_cast_would_round(rng):
    """Casting to int32 rounds to nearest; nl.floor(..., dtype=int32) is the floor (resize_nearest's
    source index: floor(i * scale))."""
    a = (np.arange(128 * 8, dtype=np.float32).reshape(128, 8) * np.float32(30 / 59))
    got = _run_unary(lambda t: nl.floor(t, dtype=nl.int32), a, nl.int32)
    np.testing.assert_array_equal(got, np.floor(a).astype(np.int32))


def test_floor_is_three_vector_instructions():
    """-trunc(x) (scalar_tensor_tensor, fp32: 2N, its mod at vector.reciprocal_factor 8: 16N),
    fmod(x, 1) < 0 (tensor_scalar with mod: 8N), trunc - step (scalar_tensor_tensor: 2N); N = 512 on
    trn1: (16N + 8N + 2N + 3 * 100) cycles busy."""
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.floor(nl.load(a)))
        return out
    r = nki.benchmark(k, np.ones((128, 512), np.float32), config="trn1")
    vector = [(s, e) for engine, _i, s, e, _w in r.instructions if engine == "vector"]
    assert len(vector) == 3
    assert sum(e - s for s, e in vector) == pytest.approx((26 * 512 + 3 * 100) / 1.12, abs=0.05)


def test_where_tiles_and_numbers(rng):
    a = rng.standard_normal((16, 9)).astype(np.float32)
    b = rng.standard_normal((16, 9)).astype(np.float32)

    @nki.jit
    def k(a, b):
        x, y = nl.load(a), nl.load(b)
        cond = nl.greater(x, 0.0)
        out1 = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        out2 = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out1, value=nl.where(cond, x, y))
        nl.store(out2, value=nl.where(cond, 7.0, y, dtype=nl.float32))
        return out1, out2
    got1, got2 = nki.simulate_kernel(k, a, b)
    np.testing.assert_array_equal(got1, np.where(a > 0, a, b))
    np.testing.assert_array_equal(got2, np.where(a > 0, np.float32(7), b))


def test_where_shape_mismatch_names_the_operand():
    @nki.jit
    def k(a):
        x = nl.load(a)
        nl.where(nl.greater(x, 0.0), x[:, 0:2], 1.0)
    with pytest.raises(KernelError, match=r"test_beta1_lowerings.py:\d+: nl.where: x has shape"):
        k(np.zeros((4, 4), np.float32))


# ------------------------------------------------------------------ nc_matmul(is_transpose=True)
@pytest.mark.parametrize("beta1", [True, False])
def test_nc_matmul_is_transpose_with_the_identity(beta1, rng):
    a = rng.standard_normal((64, 32)).astype(np.float32)

    @nki.jit
    def k(a):
        x = nl.load(a)
        eye = nl.shared_identity_matrix(64, dtype=nl.float32)
        out = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        if beta1:
            t = nisa.nc_matmul(x, eye, is_transpose=True)
        else:
            t = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_matmul(dst=t, stationary=x, moving=eye, is_transpose=True)
        nl.store(out, value=nl.copy(t))
        return out
    np.testing.assert_array_equal(nki.simulate_kernel(k, a), a.T)


def test_nc_matmul_is_transpose_needs_a_square_moving():
    @nki.jit
    def k(a):
        x = nl.load(a)
        nisa.nc_matmul(x, x, is_transpose=True)
    with pytest.raises(KernelError, match=r"is_transpose=True\): moving must be the \[64, 64\] identity"):
        k(np.zeros((64, 32), np.float32))


# ------------------------------------------------------------------ affine_select(pred=...)
def _causal_kernel(q_tile, k_tile, masked):
    @nki.jit
    def k(a):
        x = nl.load(a)
        i_p = nl.arange(a.shape[0])[:, None]
        i_f = nl.arange(a.shape[1])[None, :]
        q_pos = q_tile * a.shape[0] + i_p
        k_pos = k_tile * a.shape[1] + i_f
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        res = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        if masked:  # only the rows from 16 on; the others keep x
            res[...] = nl.copy(x)
            res[i_p, i_f] = nisa.affine_select(pred=(q_pos >= k_pos), on_true_tile=x[i_p, i_f],
                                               on_false_value=-9984.0, mask=(i_p >= 16))
        else:
            res[...] = nisa.affine_select(q_pos >= k_pos, x, -9984.0, dtype=nl.float32)
        nl.store(out, value=res)
        return out
    return k


@pytest.mark.parametrize("q_tile, k_tile", [(0, 0), (1, 0), (1, 2)])
def test_affine_select_beta1_predicate(q_tile, k_tile, rng):
    a = rng.standard_normal((32, 48)).astype(np.float32)
    p, f = np.indices(a.shape)
    want = np.where(q_tile * 32 + p >= k_tile * 48 + f, a, np.float32(-9984.0))
    np.testing.assert_array_equal(nki.simulate_kernel(_causal_kernel(q_tile, k_tile, False), a), want)


def test_affine_select_beta1_predicate_under_a_mask(rng):
    """The mask cuts the tile to rows 16..31; the predicate still sees their own row numbers."""
    a = rng.standard_normal((32, 48)).astype(np.float32)
    p, f = np.indices(a.shape)
    want = np.where((p < 16) | (p >= f), a, np.float32(-9984.0))
    np.testing.assert_array_equal(nki.simulate_kernel(_causal_kernel(0, 0, True), a), want)


def test_affine_select_beta1_of_a_psum_tile_copies_it_to_sbuf_first(rng):
    """flash attention's causal mask on the QK^T matmul result: GpSimd cannot read PSUM, so the
    tile is copied out (VectorE) before the GpSimd affine_select."""
    a = rng.standard_normal((32, 32)).astype(np.float32)

    @nki.jit
    def k(a):
        eye = nl.shared_identity_matrix(32, dtype=nl.float32)
        ps = nisa.nc_matmul(eye, nl.load(a))
        i_q, i_k = nl.mgrid[0:32, 0:32]
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.affine_select(pred=(i_q >= i_k), on_true_tile=ps, on_false_value=-1.0))
        return out
    np.testing.assert_array_equal(k(a), np.where(np.tri(32, dtype=bool), a, np.float32(-1)))


def test_affine_select_needs_a_predicate_of_index_expressions():
    @nki.jit
    def k(a):
        x = nl.load(a)
        nisa.affine_select(x, x, 0.0)
    with pytest.raises(KernelError, match="pred must compare two index expressions"):
        k(np.zeros((4, 4), np.float32))


def test_affine_predicate_cannot_be_a_mask():
    @nki.jit
    def k(a):
        i_p, i_f = nl.arange(4)[:, None], nl.arange(4)[None, :]
        nl.load(a, mask=(i_p >= i_f))
    with pytest.raises(KernelError, match="affine_select predicate"):
        k(np.zeros((4, 4), np.float32))


# ------------------------------------------------------------------ iota over an nl.mgrid
def test_iota_of_an_mgrid_is_its_dense_shape():
    """3 * w.y + w.z over [P, 5, 3, 3]: one GpSimd iota over the [3, 3] dims that vary (their steps
    nest), repeated over .x by a stride-0 view (select_and_scatter's window positions)."""
    @nki.jit
    def k(a):
        w = nl.mgrid[0:8, 0:5, 0:3, 0:3]
        idx = nisa.iota(3 * w.y + w.z + 1, dtype=nl.float32)
        out = nl.ndarray((8, 5, 3, 3), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.add(idx, nl.load(a)))
        return out
    got = k(np.zeros((8, 5, 3, 3), np.float32))
    y, z = np.indices((3, 3))
    np.testing.assert_array_equal(got, np.broadcast_to(3 * y + z + 1, (8, 5, 3, 3)))


def test_iota_pattern_with_step_zero_dims():
    """0.3+ pattern [[0, 40], [1353, 3]] (NKI Library cascaded_max): a GpSimd iota over the [3] dim and a
    GpSimd copy repeating it 40 times into dst."""
    @nki.jit
    def k(a):
        t = nl.ndarray((4, 120), dtype=nl.float32, buffer=nl.sbuf)
        nisa.iota(dst=t, pattern=[[0, 40], [1353, 3]], offset=5, channel_multiplier=2)
        out = nl.ndarray((4, 120), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=t)
        return out
    want = 5 + 2 * np.arange(4)[:, None, None] + 1353 * np.arange(3)[None, None, :] + np.zeros((1, 40, 1))
    np.testing.assert_array_equal(k(np.zeros(1, np.float32)), want.reshape(4, 120))


def test_iota_steps_that_do_not_nest_are_unsupported():
    @nki.jit
    def k(a):
        w = nl.mgrid[0:8, 0:5, 0:3]
        nisa.iota(w.x + w.y, dtype=nl.float32)
    with pytest.raises(nki.Unsupported, match="do not nest"):
        k(np.zeros((8, 4), np.float32))


# ------------------------------------------------------------------ mod_alloc: blocks modulo physical tiles
def test_mod_alloc_blocks_map_modulo_onto_the_physical_tiles(rng):
    """8 logical [P, 512] fp32 PSUM blocks (one 2 KiB bank each) over num_bank_tiles=(2,): 2 banks of
    PSUM's 8, where all 8 blocks would not fit beside anything else (allocated attention's qk_psum);
    block i is bank i % 2."""
    a = rng.standard_normal((64, 8 * 512)).astype(np.float32)

    @nki.jit
    def k(a):
        eye = nl.shared_identity_matrix(64, dtype=nl.float32)
        x = nl.load(a)
        ps = nl.ndarray((8, nl.par_dim(64), 512), dtype=nl.float32,
                        buffer=ncc.psum.mod_alloc(base_bank=0, num_bank_tiles=(2,)))
        other = nl.zeros((64, 512), dtype=nl.float32, buffer=nl.psum)
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        res = nl.ndarray((64, 8 * 512), dtype=nl.float32, buffer=nl.sbuf)
        for i in nl.affine_range(8):
            ps[i] = nisa.nc_matmul(eye, x[:, i * 512:(i + 1) * 512])
            res[:, i * 512:(i + 1) * 512] = nl.add(ps[i], other)
        nl.store(out, value=res)
        return out
    np.testing.assert_array_equal(k(a), a)


def test_mod_alloc_slice_across_rounds_is_unsupported():
    @nki.jit
    def k(a):
        t = nl.ndarray((4, nl.par_dim(8), 8), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=0,
                                                                                         num_free_tiles=(2,)))
        t[1:3] = nl.load(a)
    with pytest.raises(nki.Unsupported, match="modulo 2 physical ones"):
        k(np.zeros((8, 8), np.float32))


# ------------------------------------------------------------------ reversed (negative-step) indices
def test_reversed_index_sum_matches_numpy(rng):
    """t[p, y + (1 - x)] over x in {0, 1} (interpolate_bilinear's neighbour): one instruction per x."""
    a = rng.standard_normal((16, 10)).astype(np.float32)

    @nki.jit
    def k(a):
        x = nl.load(a)
        i_p, i_x, i_y = nl.mgrid[0:16, 0:2, 0:9]
        out = nl.ndarray((16, 2, 9), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.multiply(x[i_p, i_y + (-1 * i_x + 1)], 2.0))
        return out
    got = k(a)
    want = np.stack([a[:, 1:10], a[:, 0:9]], axis=1) * 2
    np.testing.assert_array_equal(got, want)


def test_reversed_arange_reverses_the_columns(rng):
    a = rng.standard_normal((8, 6)).astype(np.float32)

    @nki.jit
    def k(a):
        x = nl.load(a)
        i_p, i_f = nl.arange(8)[:, None], nl.arange(6)[None, :]
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(x[i_p, 5 + -1 * i_f]))
        return out
    np.testing.assert_array_equal(k(a), a[:, ::-1])


def test_reversed_index_past_the_start_is_an_error():
    @nki.jit
    def k(a):
        x = nl.load(a)
        i_p, i_f = nl.arange(8)[:, None], nl.arange(6)[None, :]
        nl.copy(x[i_p, 2 + -1 * i_f])
    with pytest.raises(KernelError, match=r"reaches elements -3\.\.2"):
        k(np.zeros((8, 6), np.float32))


# ------------------------------------------------------------------ returned views
def test_a_returned_reshape_has_the_views_shape(rng):
    """`return out.reshape((n, c, h, w))` (Beta 1's interpolation kernels): the caller gets that shape."""
    a = rng.standard_normal((6, 8)).astype(np.float32)

    @nki.jit
    def k(a):
        out = nl.ndarray((6, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a))
        return out.reshape((2, 3, 8))
    np.testing.assert_array_equal(k(a), a.reshape(2, 3, 8))


def test_shared_constant_from_a_npy_file(tmp_path, rng):
    """nl.shared_constant(path): the NKI Library's topk passes the .npy file it saved."""
    c = rng.standard_normal((8, 5)).astype(np.float32)
    np.save(tmp_path / "c.npy", c)

    @nki.jit
    def k(a):
        out = nl.ndarray((8, 5), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.add(nl.load(nl.shared_constant(str(tmp_path / "c.npy"))), nl.load(a)))
        return out
    np.testing.assert_array_equal(k(np.ones((8, 5), np.float32)), c + 1)

    @nki.jit
    def missing(a):
        nl.shared_constant(str(tmp_path / "none.npy"))
    with pytest.raises(KernelError, match="not a readable .npy file"):
        missing(np.ones((8, 5), np.float32))


def test_loop_reduce_accumulates_into_its_assignment(rng):
    """`acc[...] = nl.loop_reduce(x, op=np.add, loop_indices=(i,))` is acc = acc + x (NKI's doc: the
    destination is op's other operand), one VectorE tensor_tensor per iteration."""
    a = rng.standard_normal((4, 16, 8)).astype(np.float32)

    @nki.jit
    def k(a):
        acc = nl.zeros((16, 8), dtype=nl.float32, buffer=nl.sbuf)
        top = nl.full((16, 8), -1e30, dtype=nl.float32, buffer=nl.sbuf)
        for i in nl.affine_range(4):
            x = nl.load(a[i])
            acc[...] = nl.loop_reduce(x, op=np.add, loop_indices=(i,))
            top[...] = nl.loop_reduce(x, op=nl.maximum, loop_indices=[i])
        out = nl.ndarray((2, 16, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out[0], value=acc)
        nl.store(out[1], value=top)
        return out
    got = k(a)
    np.testing.assert_allclose(got[0], a.sum(axis=0), rtol=1e-6)
    np.testing.assert_array_equal(got[1], a.max(axis=0))

    @nki.jit
    def bad(a):
        nl.loop_reduce(nl.load(a[0]), op="add", loop_indices=(0,))
    with pytest.raises(KernelError, match="nl.loop_reduce: op 'add' is not an ALU op"):
        bad(a)


def test_indexing_hbm_with_a_tile_is_unsupported():
    """resize_nearest's gather data[b, load_indices, i_f]: runtime (indirect) addressing."""
    @nki.jit
    def k(a):
        idx = nisa.iota(nl.arange(4)[:, None], dtype=nl.int32)
        nl.load(a[idx, nl.arange(8)[None, :]])
    with pytest.raises(nki.Unsupported, match="with a tile \\(an indirect, runtime-addressed access\\)"):
        k(np.zeros((4, 8), np.float32))


def test_affine_select_without_offset_builds_an_identity():
    """cascaded_max's identity: a ones tile, kept where p * -1 + i == 0 (offset defaults to 0)."""
    @nki.jit
    def k(a):
        eye = nl.ndarray((16, 16), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=eye, value=1.0)
        nisa.affine_select(dst=eye[...], pattern=[[1, 16]], channel_multiplier=-1, cmp_op=nl.equal,
                           on_true_tile=eye[...], on_false_value=0.0)
        out = nl.ndarray((16, 16), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=eye)
        return out
    np.testing.assert_array_equal(k(np.zeros(1, np.float32)), np.eye(16, dtype=np.float32))


def test_tile_reshape_keeps_the_partition_dim(rng):
    """cascaded_max's masked_index.reshape((b, s, v)) of a [b, s * v] tile."""
    a = rng.standard_normal((4, 12)).astype(np.float32)

    @nki.jit
    def k(a):
        t = nl.load(a)
        out = nl.ndarray((4, 3), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.max(t.reshape((4, 3, 4)), axis=2))
        return out
    np.testing.assert_array_equal(k(a), a.reshape(4, 3, 4).max(axis=2))

    @nki.jit
    def bad(a):
        nl.load(a).reshape((2, 24))
    with pytest.raises(KernelError, match="keep the partition dim first"):
        bad(a)
