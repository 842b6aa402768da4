"""NKI 0.3+ (`nki.*`) API on the simulator: destination-passing instructions, nl.ds, .ap() and the
tensor-view methods, against NumPy."""
import numpy as np
import pytest
from nki_testing import bf16, f32

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl


def tile_of(src, dtype=None):
    """src (HBM) into a new SBUF tile, 0.3+ style."""
    t = nl.ndarray(src.shape, dtype=dtype or src.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=src)
    return t


def hbm_out(t, shape=None):
    out = nl.ndarray(shape or t.shape, dtype=t.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


def test_tensor_tensor_scalar_copy_memset(rng):
    a, b = rng.standard_normal((64, 96)).astype(np.float32), rng.standard_normal((64, 96)).astype(np.float32)

    @nki.jit
    def k(a, b):
        x, y = tile_of(a), tile_of(b)
        s = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=s, data1=x, data2=y, op=nl.multiply)
        nisa.tensor_scalar(s, s, nl.add, 1.5, op1=nl.maximum, operand1=0.0)  # positional dst form
        c = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
        nisa.tensor_copy(dst=c, src=s, engine=nisa.engine.gpsimd)
        z = nl.ndarray((64, 8), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=z, value=-3.0)
        return hbm_out(c), hbm_out(z)
    c, z = k(a, b)
    np.testing.assert_array_equal(f32(c), f32(bf16(np.maximum(a * b + 1.5, 0.0))))
    np.testing.assert_array_equal(z, np.full((64, 8), -3.0, np.float32))


def test_activation_reduce_reciprocal_and_reduce_cmd(rng):
    a = rng.uniform(0.5, 2.0, (32, 40)).astype(np.float32)

    @nki.jit
    def k(a):
        x = tile_of(a)
        e = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        sums = nl.ndarray((32, 1), dtype=nl.float32, buffer=nl.sbuf)
        # sums is fresh: activation_reduce writes it (no read before write)
        nisa.activation_reduce(dst=e, op=nl.exp, data=x, reduce_op=nl.add, reduce_res=sums, scale=0.5)
        twice = nl.ndarray((32, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=twice, value=1.0)
        nisa.activation(dst=e, op=nl.exp, data=x, scale=0.5, reduce_op=nl.add, reduce_res=twice,
                        reduce_cmd=nisa.reduce_cmd.reduce)  # accumulates onto the 1.0
        r = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=r, data=x)
        return hbm_out(e), hbm_out(sums), hbm_out(twice), hbm_out(r)
    e, sums, twice, r = k(a)
    np.testing.assert_allclose(e, np.exp(0.5 * a), rtol=1e-5)
    np.testing.assert_allclose(sums[:, 0], np.exp(0.5 * a).sum(1), rtol=1e-4)
    np.testing.assert_allclose(twice[:, 0], 1.0 + np.exp(0.5 * a).sum(1), rtol=1e-4)
    np.testing.assert_allclose(r, 1.0 / a, rtol=1e-5)


def test_nc_matmul_accumulates_within_a_group(rng):
    """accumulate=None: the first matmul into a fresh PSUM tile writes, later ones add (NKI's
    accumulation group); a memset-0 tile accumulates from zero."""
    s = bf16(rng.standard_normal((2, 128, 32)))
    m = bf16(rng.standard_normal((2, 128, 64)))

    @nki.jit
    def k(s, m):
        fresh = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.psum)
        zeroed = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.psum)
        nisa.memset(dst=zeroed, value=0.0)
        for i in range(2):
            st, mv = tile_of(s[i]), tile_of(m[i])
            nisa.nc_matmul(dst=fresh, stationary=st, moving=mv)
            nisa.nc_matmul(zeroed, st, mv)
        once = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=once, stationary=tile_of(s[0]), moving=tile_of(m[0]), accumulate=False)
        outs = []
        for p in (fresh, zeroed, once):
            sb = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=sb, src=p)
            outs.append(hbm_out(sb))
        return tuple(outs)
    fresh, zeroed, once = k(s, m)
    want = sum(f32(s[i]).T @ f32(m[i]) for i in range(2))
    np.testing.assert_allclose(fresh, want, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(zeroed, want, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(once, f32(s[0]).T @ f32(m[0]), rtol=1e-4, atol=1e-3)


def test_transpose_into_a_bf16_psum_tile(rng):
    a = bf16(rng.standard_normal((48, 96)))

    @nki.jit
    def k(a):
        p = nl.ndarray((96, 48), dtype=nl.bfloat16, buffer=nl.psum)
        assert p.dtype == nl.bfloat16  # the kernel sees the dtype it asked for
        nisa.nc_transpose(dst=p, data=tile_of(a))
        sb = nl.ndarray((96, 48), dtype=nl.bfloat16, buffer=nl.sbuf)
        nisa.tensor_copy(dst=sb, src=p)
        return hbm_out(sb)
    np.testing.assert_array_equal(f32(k(a)), f32(a).T)


def test_reduce_partition_reduce_iota_scan(rng):
    a = rng.standard_normal((16, 3, 8)).astype(np.float32)

    @nki.jit
    def k(a):
        x = tile_of(a)
        r = nl.ndarray((16, 3), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=r, op=nl.maximum, data=x, axis=2)
        col = nl.ndarray((1, 24), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_partition_reduce(dst=col, op=nl.add, data=x)
        io = nl.ndarray((16, 24), dtype=nl.int32, buffer=nl.sbuf)
        nisa.iota(dst=io, pattern=[[8, 3], [1, 8]], offset=5, channel_multiplier=100)
        ones = nl.ndarray((16, 24), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=ones, value=1.0)
        scan = nl.ndarray((16, 24), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor_scan(dst=scan, data0=ones, data1=x.flatten_dims(1, 2), initial=0.0, op0=nl.multiply,
                                op1=nl.add)
        return hbm_out(r), hbm_out(col), hbm_out(io), hbm_out(scan)
    r, col, io, scan = k(a)
    np.testing.assert_array_equal(r, a.max(axis=2))
    np.testing.assert_allclose(col[0], a.reshape(16, 24).sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(io, 5 + 100 * np.arange(16)[:, None] + np.arange(24)[None, :])
    np.testing.assert_allclose(scan, np.cumsum(a.reshape(16, 24), axis=1), rtol=1e-5, atol=1e-5)


def test_ds_ap_and_view_methods(rng):
    a = rng.standard_normal((8, 6, 4)).astype(np.float32)
    b = rng.standard_normal((4, 8)).astype(np.float32)

    @nki.jit
    def k(a, b):
        x = tile_of(a)                                   # [8, 6, 4]
        outs = [x[nl.ds(2, 4), nl.ds(1, 3)],             # rows 2..5, cols 1..3
                x.slice(1, 0, 6, 2),                      # every other of dim 1
                x.select(2, 3).expand_dim(2),             # [8, 6, 1]
                x.permute((0, 2, 1)),                     # [8, 4, 6]
                x.reshape_dim(1, (2, 3)).flatten_dims(2, 3),  # [8, 2, 12]
                x.ap(pattern=[[24, 8], [1, 4]], offset=8),      # row 2 of dim 1 via .ap
                x.rearrange("p a b -> p b a")]
        res = []
        for v in outs:
            t = nl.ndarray(v.shape, dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=t, src=v)
            res.append(hbm_out(t))
        hb = b.ap(pattern=[[1, 4], [4, 8]], offset=0)     # HBM view: b read column-major
        bt = nl.ndarray((4, 8), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=bt, src=hb, dge_mode=nisa.dge_mode.hwdge, oob_mode=nisa.oob_mode.error, name="bt")
        row = nl.ndarray((1, 8), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=row, src=b[0:1, :])
        wide = nl.ndarray((1, 3, 8), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=wide, src=row.expand_dim(1).broadcast(1, 3))
        return tuple(res) + (hbm_out(bt), hbm_out(wide))
    got = k(a, b)
    want = [a[2:6, 1:4], a[:, 0:6:2], a[:, :, 3:4], a.transpose(0, 2, 1), a.reshape(8, 2, 12), a[:, 2, :],
            a.transpose(0, 2, 1), b.reshape(-1).reshape(8, 4).T, np.broadcast_to(b[0:1, None, :], (1, 3, 8))]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_strided_arange_over_the_last_columns():
    """Bug fix: t[i * 2 + 1] over the last 7 of 14 columns was rejected as "slice 1:15 out of bounds"."""
    a = np.arange(4 * 14, dtype=np.float32).reshape(4, 14)

    @nki.jit
    def k(a):
        i = nl.arange(7)[None, :]
        out = nl.ndarray((4, 7), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a[nl.arange(4)[:, None], i * 2 + 1]))
        return out
    np.testing.assert_array_equal(k(a), a[:, 1::2])


def test_unsupported_names_exist_and_raise_at_the_kernel_line():
    for name in ("affine_select", "bn_stats", "dma_transpose", "scalar_tensor_tensor", "sendrecv", "max8"):
        assert callable(getattr(nisa, name))
    assert str(nl.float8_e4m3fn) == "float8_e4m3fn" and nl.uint8 is not None

    @nki.jit
    def k(a):
        t = tile_of(a)
        nisa.local_gather(dst=t, data=t)
    with pytest.raises(nki.Unsupported, match=r"test_nki_api.py:\d+: nisa.local_gather is not supported"):
        k(np.zeros((4, 4), np.float32))

    @nki.jit
    def k2(a):  # runtime addressing of an on-chip tensor (HBM ones are modelled: test_dma_indirect.py)
        t = tile_of(a)
        i = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=t.ap(pattern=[[4, 4], [1, 4]], offset=0, scalar_offset=i, indirect_dim=1))
    with pytest.raises(nki.Unsupported, match=r"test_nki_api.py:\d+: \.ap\(scalar_offset=/vector_offset=\) on the on-chip"):
        k2(np.zeros((4, 4), np.float32))


@pytest.mark.parametrize("call, message", [
    (lambda t: nisa.tensor_copy(dst=t, src=t, bogus=1), "nisa.tensor_copy: got an unexpected keyword"),
    (lambda t: nisa.tensor_tensor(dst=t, data1=t), "nisa.tensor_tensor: missing a required argument"),
    (lambda t: t.permute((0, 0)), r"permute\(\(0, 0\)\) is not a permutation"),
    (lambda t: t.ap(pattern=[[1, 0]]), r"\.ap\(pattern="),
    (lambda t: nisa.tensor_copy(dst=t, src=t.ap(pattern=[[4, 4], [1, 4]], offset=13)),
     r"reaches element 28 of tensor '\w+' \(16 elements\), made at test_nki_api.py:\d+"),
    (lambda t: t.ap(pattern=[[4, 2], [1, 8]]), r"reaches element 7 of a partition"),  # fuzz: ran into the next row
    (lambda t: t.slice(5, 0, 1), "slice: dim 5 out of range"),
    (lambda t: t.rearrange("p a -> a"), "both sides must name the same dims"),
    (lambda t: nisa.nc_matmul(dst=t, stationary=t, moving=t), "nisa.nc_matmul writes PSUM"),
    (lambda t: nisa.iota(dst=t, pattern=[[1, 2], [5, 2]]), "only patterns with one free step"),
])
def test_authoring_mistakes_are_kernel_errors(call, message):
    @nki.jit
    def k(a):
        call(tile_of(a))
    with pytest.raises(nki.KernelError, match=message):
        k(np.zeros((4, 4), np.float32))



def test_a_view_past_its_tensor_is_an_error_only_where_an_instruction_uses_it(rng):
    """The NKI Library's output_proj_tkg makes a stationary .ap view for every h index and uses it only
    under `if h_2_idx < h_2_size`: making the view is not the mistake, using it would be."""
    a = rng.standard_normal((4, 6)).astype(np.float32)

    @nki.jit
    def k(a):
        out = nl.ndarray((4, 3), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((4, 6), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a)
        for j in range(4):
            view = t.ap(pattern=[[6, 4], [2, 3]], offset=j)  # j = 3 reaches column 7 of 6
            if j < 3:
                nisa.dma_copy(dst=out, src=view) if j == 1 else None
        return out
    np.testing.assert_array_equal(k(a), a[:, 1::2])

def test_beta1_partition_broadcast_and_numpy_ufuncs(rng):
    """Beta 1 kernels broadcast a [1, N] tile across partitions (layernorm, mamba tutorials) and apply
    NumPy ufuncs to tiles and as instruction ops (np.multiply)."""
    a = rng.standard_normal((1, 700)).astype(np.float32)
    b = rng.standard_normal((128, 700)).astype(np.float32)

    @nki.jit
    def k(a, b):
        row, x = nl.load(a), nl.load(b)
        y = np.multiply(row.broadcast_to((128, 700)), x)       # 2 matmuls of <= 512 columns fill it
        z = nisa.tensor_tensor(y, x, op=np.add)
        out = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=np.exp(z))
        return out
    np.testing.assert_allclose(k(a, b), np.exp(a * b + b), rtol=1e-5)

    @nki.jit
    def bad(a):
        np.cumsum(nl.load(a))
    with pytest.raises(nki.Unsupported, match="NumPy can take tiles only through ufuncs"):
        bad(a)


def test_beta1_mask_cuts_the_last_partial_tile(rng):
    """mask= (76 uses in published Beta 1 kernels): a row count that is not a multiple of 128."""
    a = rng.standard_normal((300, 64)).astype(np.float32)

    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        ip, jf = nl.arange(128)[:, None], nl.arange(64)[None, :]
        for i in nl.affine_range(3):
            t = nl.load(a[i * 128 + ip, jf], mask=(i * 128 + ip < a.shape[0]))
            y = nl.exp(t, mask=(i * 128 + ip < a.shape[0]) & (jf >= 0))
            nl.store(out[i * 128 + ip, jf], value=y, mask=(i * 128 + ip < a.shape[0]))
        return out
    np.testing.assert_allclose(k(a), np.exp(a), rtol=1e-5)

    @nki.jit
    def unmasked(a):
        ip, jf = nl.arange(128)[:, None], nl.arange(64)[None, :]
        nl.load(a[256 + ip, jf])
    with pytest.raises(nki.KernelError, match=r"the access reaches past tensor 'a' \(\[44, 64\] of the view's "
                                              r"\[128, 64\] exist\): slice within the tensor or give the call a mask="):
        unmasked(a)

    # mask=(k * 128 < n) without an index expression is a Python bool: True keeps the call, False drops it
    @nki.jit
    def decided(a):
        t = nl.load(a[0:128], mask=(0 < 1))
        out = nl.ndarray(t.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for row_tile, value in ((5, nl.exp(t)), (0, t)):  # tile 5 is past the rows: its store is dropped
            nl.store(out, value=value, mask=(row_tile * 128 < a.shape[0]))
        return out
    np.testing.assert_array_equal(decided(a), a[0:128])


@pytest.mark.parametrize("call, message", [
    (lambda a: nl.full((4, 4), 0.0, nl.float32, colour="red"), r"nl.full: got an unexpected keyword argument 'colour'"),
    (lambda a: nl.load(), r"nl.load: missing a required argument: 'src'"),
    (lambda a: nisa.dma_copy(dst=a), r"nisa.dma_copy: missing a required argument: 'src'"),
])
def test_signature_mismatches_are_kernel_errors(call, message):
    """A call that does not fit an API's signature is a KernelError naming the API (Beta 1 samples
    passed lazy_initialization= and a Beta-1 activation_reduce that fell through as TypeErrors)."""
    @nki.jit
    def k(a):
        call(a)
    with pytest.raises(nki.KernelError, match=message):
        k(np.zeros((4, 4), np.float32))


def test_beta1_activation_reduce_and_reciprocal_return_tiles(rng):
    a = rng.uniform(0.5, 2.0, (16, 32)).astype(np.float32)

    @nki.jit
    def k(a):
        s = nl.zeros((16, 1), nl.float32)
        e = nisa.activation_reduce(nl.exp, nl.load(a), reduce_op=nl.add, reduce_res=s)
        r = nisa.reciprocal(e)
        out, sums = (nl.ndarray(t.shape, dtype=nl.float32, buffer=nl.shared_hbm) for t in (r, s))
        nl.store(out, value=r)
        nl.store(sums, value=s)
        return out, sums
    r, s = k(a)
    np.testing.assert_allclose(r, np.exp(-a), rtol=1e-5)
    np.testing.assert_allclose(s[:, 0], np.exp(a).sum(1), rtol=1e-4)


def test_dst_positional_and_the_rest_by_keyword_is_the_dst_form(rng):
    """NKI Library tp_broadcast / attention_bwd: tensor_copy(view, src=t) and tensor_tensor(view, data1=,
    data2=, op=) have one positional argument, as Beta 1's calls do; they bind only to the 0.3+ form
    (before: 'multiple values for argument src')."""
    a = rng.standard_normal((4, 8)).astype(np.float32)

    @nki.jit
    def k(a):
        x = nl.load(a)
        y = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(y[...], src=x)
        z = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(z[...], data1=x, data2=y, op=nl.multiply)
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=z)
        return out
    np.testing.assert_array_equal(k(a), a * a)


def test_a_copied_dtype_is_the_dtype_itself():
    """The NKI Library's attention_tkg test passes its dtype through its config (copied), then asks
    `dtype in (nl.tfloat32, nl.bfloat16, ...)`: a copy, deep copy or pickle of an nl dtype is that dtype."""
    import copy
    import dataclasses
    import pickle

    @dataclasses.dataclass
    class Config:
        dtype: object

    for d in (nl.bfloat16, nl.float32, nl.float8_e4m3, nl.int8):
        assert copy.copy(d) is d and copy.deepcopy(d) is d and pickle.loads(pickle.dumps(d)) is d
        assert dataclasses.asdict(Config(d))["dtype"] in (nl.tfloat32, d)
