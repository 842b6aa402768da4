"""Every nl function, run on the simulator, against NumPy (bf16 rounding included)."""
import numpy as np
import pytest
from nki_testing import BF16, bf16, f32

import nsim.nki as nki
import nsim.nki.language as nl


def unary_kernel(fn):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=fn(nl.load(a)))
        return out
    return k


def binary_kernel(fn):
    @nki.jit
    def k(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=fn(nl.load(a), nl.load(b)))
        return out
    return k


BINARY = [
    (nl.add, np.add), (nl.subtract, np.subtract), (nl.multiply, np.multiply), (nl.divide, np.divide),
    (nl.maximum, np.maximum), (nl.minimum, np.minimum),
]


@pytest.mark.parametrize("fn,ref", BINARY, ids=[f.__name__ for f, _ in BINARY])
def test_binary_bf16(fn, ref, rng):
    a, b = bf16(rng.standard_normal((128, 64))), bf16(rng.standard_normal((128, 64)) + 3)
    y = nki.simulate_kernel(binary_kernel(fn), a, b)
    assert y.dtype == BF16
    np.testing.assert_array_equal(f32(y), f32(bf16(ref(f32(a), f32(b)))))


def test_power_f32(rng):
    a = np.abs(rng.standard_normal((64, 32))).astype(np.float32) + 0.5
    b = rng.standard_normal((64, 32)).astype(np.float32)
    y = nki.simulate_kernel(binary_kernel(nl.power), a, b)
    np.testing.assert_allclose(y, np.power(a, b), rtol=1e-6)


def test_scalar_operands_and_operators(rng):
    a = bf16(rng.standard_normal((32, 16)))
    y = nki.simulate_kernel(unary_kernel(lambda t: nl.add(t, 2.0) * 3.0 - 1.0), a)
    expect = bf16(f32(bf16(f32(bf16(f32(a) + 2.0)) * 3.0)) - 1.0)
    np.testing.assert_array_equal(f32(y), f32(expect))
    y = nki.simulate_kernel(unary_kernel(lambda t: 1.0 - t), a)
    np.testing.assert_array_equal(f32(y), f32(bf16(1.0 - f32(a))))
    y = nki.simulate_kernel(unary_kernel(nl.negative), a)
    np.testing.assert_array_equal(f32(y), -f32(a))


def test_column_broadcast(rng):
    @nki.jit
    def k(a, c):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.multiply(nl.load(a), nl.load(c)))
        return out
    a = rng.standard_normal((64, 48)).astype(np.float32)
    c = rng.standard_normal((64, 1)).astype(np.float32)
    np.testing.assert_allclose(nki.simulate_kernel(k, a, c), a * c, rtol=1e-6)


ACTIVATIONS = [
    (nl.exp, np.exp), (nl.tanh, np.tanh), (nl.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    (nl.silu, lambda x: x / (1 + np.exp(-x))), (nl.relu, lambda x: np.maximum(x, 0)), (nl.square, np.square),
    (nl.gelu, None),
]


@pytest.mark.parametrize("fn,ref", ACTIVATIONS, ids=[f.__name__ for f, _ in ACTIVATIONS])
def test_activation_f32(fn, ref, rng):
    a = rng.standard_normal((128, 32)).astype(np.float32)
    y = nki.simulate_kernel(unary_kernel(fn), a)
    if ref is None:  # gelu: tanh or erf form; both are within 1e-3 of each other
        from math import erf
        ref = np.vectorize(lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2))))
    np.testing.assert_allclose(y, ref(a).astype(np.float32), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("fn,ref", [(nl.sqrt, np.sqrt), (nl.rsqrt, lambda x: 1 / np.sqrt(x)),
                                    (nl.reciprocal, lambda x: 1 / x), (nl.log, np.log)],
                         ids=["sqrt", "rsqrt", "reciprocal", "log"])
def test_positive_activation(fn, ref, rng):
    a = (np.abs(rng.standard_normal((128, 32))) + 0.1).astype(np.float32)
    np.testing.assert_allclose(nki.simulate_kernel(unary_kernel(fn), a), ref(a), rtol=1e-5)


def test_activation_bf16_rounds(rng):
    a = bf16(rng.standard_normal((128, 32)))
    y = nki.simulate_kernel(unary_kernel(nl.exp), a)
    assert y.dtype == BF16
    np.testing.assert_array_equal(f32(y), f32(bf16(np.exp(f32(a)))))


@pytest.mark.parametrize("fn,ref", [(nl.sum, np.sum), (nl.max, np.max), (nl.min, np.min), (nl.mean, np.mean)],
                         ids=["sum", "max", "min", "mean"])
def test_reductions(fn, ref, rng):
    @nki.jit
    def k(a):
        out = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=fn(nl.load(a), axis=1, keepdims=True))
        return out
    a = rng.standard_normal((128, 256)).astype(np.float32)
    np.testing.assert_allclose(nki.simulate_kernel(k, a), ref(a, axis=1, keepdims=True), rtol=1e-5, atol=1e-5)


def test_reduce_two_trailing_axes(rng):
    @nki.jit
    def k(a):
        out = nl.ndarray((a.shape[0],), dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.sum(nl.load(a), axis=(1, 2)))
        return out
    a = rng.standard_normal((32, 4, 8)).astype(np.float32)
    np.testing.assert_allclose(nki.simulate_kernel(k, a), a.sum(axis=(1, 2)), rtol=1e-5, atol=1e-5)


def test_copy_casts(rng):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(nl.load(a), dtype=nl.bfloat16))
        return out
    a = rng.standard_normal((16, 64)).astype(np.float32)
    np.testing.assert_array_equal(f32(nki.simulate_kernel(k, a)), f32(bf16(a)))


def test_load_casts_and_store_f16(rng):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=nl.float16, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a, dtype=nl.float16))
        return out
    a = rng.standard_normal((16, 64)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(k, a), a.astype(np.float16))


@pytest.mark.parametrize("transpose_x", [True, False])
def test_matmul(transpose_x, rng):
    @nki.jit
    def k(x, y):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        res = nl.matmul(nl.load(x), nl.load(y), transpose_x=transpose_x)
        nl.store(out, value=nl.copy(res))
        return out
    x = bf16(rng.standard_normal((128, 128)))
    y = bf16(rng.standard_normal((128, 512)))
    ref = (f32(x) if transpose_x else f32(x).T).T @ f32(y)
    np.testing.assert_allclose(nki.simulate_kernel(k, x, y), ref, rtol=1e-4, atol=1e-3)


def test_transpose(rng):
    @nki.jit
    def k(a):
        out = nl.ndarray((a.shape[1], a.shape[0]), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(nl.transpose(nl.load(a))))
        return out
    a = rng.standard_normal((64, 96)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(k, a), a.T)


def test_zeros_full_ones():
    @nki.jit
    def k(a):
        out = nl.ndarray((3, 8, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out[0], value=nl.zeros((8, 4), nl.float32))
        nl.store(out[1], value=nl.full((8, 4), 2.5, nl.float32))
        nl.store(out[2], value=nl.ones((8, 4), nl.float32))
        return out
    y = nki.simulate_kernel(k, np.zeros((1, 1), np.float32))
    np.testing.assert_array_equal(y, np.stack([np.zeros((8, 4)), np.full((8, 4), 2.5), np.ones((8, 4))]))


def test_arange_mgrid_indexing_and_loops(rng):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        i_p = nl.arange(64)[:, None]
        i_f = nl.arange(32)[None, :]
        g = nl.mgrid[0:64, 0:32]
        for i in nl.sequential_range(2):
            t = nl.load(a[i * 64 + i_p, i_f])
            nl.store(out[i * 64 + g.p, g.x], value=t)
        for j in nl.static_range(1):
            nl.store(out[:, 32 * (j + 1):], value=nl.load(a[:, 32:]))
        return out
    a = rng.standard_normal((128, 64)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(k, a), a)


def test_psum_accumulate_with_iadd(rng):
    @nki.jit
    def k(xT, y):
        out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 256), nl.float32, buffer=nl.psum)
        for kk in nl.affine_range(xT.shape[0] // 128):
            acc += nl.matmul(nl.load(xT[kk * 128:(kk + 1) * 128, :]), nl.load(y[kk * 128:(kk + 1) * 128, :]),
                             transpose_x=True)
        nl.store(out, value=nl.copy(acc))
        return out
    xT = bf16(rng.standard_normal((512, 128)))
    y = bf16(rng.standard_normal((512, 256)))
    np.testing.assert_allclose(nki.simulate_kernel(k, xT, y), f32(xT).T @ f32(y), rtol=1e-4, atol=1e-3)


def test_output_argument_written_in_place(rng):
    @nki.jit
    def k(a, out):
        nl.store(out, value=nl.exp(nl.load(a)))
    a = rng.standard_normal((8, 8)).astype(np.float32)
    out = np.zeros_like(a)
    assert nki.simulate_kernel(k, a, out) is None
    np.testing.assert_allclose(out, np.exp(a), rtol=1e-5)


def test_index_sums_read_pooling_windows_and_reduce_over_strided_axes(rng):
    """A 2x2 average pool as the Beta 1 tutorial writes it: `t[i0, 2 * i1 + i2, 2 * i3 + i4]` with an
    nl.mgrid gives a [p, 3, 2, 4, 2] view, and nl.sum over axes (2, 4) folds the strided window dims."""
    @nki.jit
    def pool(a):
        out = nl.ndarray((16, 3, 4), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        i0, i1, i2, i3, i4 = nl.mgrid[0:16, 0:3, 0:2, 0:4, 0:2]
        s = nl.sum(t[i0, 2 * i1 + i2, 2 * i3 + i4], axis=[2, 4])
        nl.store(out, value=nl.multiply(s, 0.25))
        return out
    a = rng.standard_normal((16, 6, 8)).astype(np.float32)
    want = a.reshape(16, 3, 2, 4, 2).sum(axis=(2, 4)) * 0.25
    np.testing.assert_allclose(nki.simulate_kernel(pool, a), want, rtol=1e-6, atol=1e-6)

    @nki.jit
    def middle(a):  # one non-trailing axis: the kept trailing dim stays in order
        out = nl.ndarray((16, 8), dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.max(nl.load(a), axis=1))
        return out
    np.testing.assert_array_equal(nki.simulate_kernel(middle, a), a.max(axis=1))


@pytest.mark.parametrize("index, message", [
    (lambda t, g: t[g[0] + g[1], g[2]], "needs each term on its own axis .* and a free dim"),
    (lambda t, g: t[g[0], 3 * g[1] + g[2]], r"index sum reaches past dim 1 of tensor '.*' \(size 6\) by 2 element"),
    (lambda t, g: t[g[0], g[2] + 2 * g[1]][:, :, :], None),
])
def test_index_sum_mistakes_are_kernel_errors(index, message):
    @nki.jit
    def k(a):
        out = nl.ndarray((4, 3, 2), dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(index(nl.load(a), nl.mgrid[0:4, 0:3, 0:2])))
        return out
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    if message is None:  # terms in any order: the view's dims follow their axes
        np.testing.assert_array_equal(nki.simulate_kernel(k, a), a.reshape(4, 3, 2))
        return
    with pytest.raises(nki.KernelError, match=message):
        nki.simulate_kernel(k, a)


def test_index_sum_past_the_rows_under_a_mask(rng):
    """Max pooling with stride 1 (a Beta 1 contributed kernel): the last row tile loads rows
    `i_h + i_kh` that run past the tensor; its mask (i_h < rows - 2) keeps only windows that exist."""
    @nki.jit
    def windows(a):
        rows, k = a.shape[0], 3
        out = nl.ndarray((rows - (k - 1), k, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(2):
            i_h, i_kh, i_w = nl.mgrid[0:64, 0:k, 0:a.shape[1]]
            i_h = i * 64 + i_h
            t = nl.load(a[i_h + i_kh, i_w], mask=(i_h < rows - (k - 1)))
            nl.store(out[i_h, i_kh, i_w], value=t, mask=(i_h < rows - (k - 1)))
        return out
    a = rng.standard_normal((100, 8)).astype(np.float32)
    want = np.stack([a[j:j + 98] for j in range(3)], axis=1)
    np.testing.assert_array_equal(nki.simulate_kernel(windows, a), want)


def test_masked_reduce_over_two_free_axes(rng):
    """adaptive_avg_pool2d (nki-samples) sums a partial pooling window: nl.sum(axis=[-2, -1]) with a
    mask on both reduced axes cuts the source only; a mask on a reduced axis leaves the kept dims whole."""
    a = rng.standard_normal((64, 8, 8)).astype(np.float32)

    @nki.jit
    def window(a):
        out = nl.ndarray((64, 1), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        ih, iw = nl.arange(8)[None, :, None], nl.arange(8)[None, None, :]
        nl.store(out, value=nl.sum(t, axis=[-2, -1], mask=((ih < 6) & (iw < 5)), keepdims=True))
        return out
    np.testing.assert_allclose(nki.simulate_kernel(window, a)[:, 0], a[:, :6, :5].sum(axis=(1, 2)), rtol=1e-5, atol=1e-6)

    @nki.jit
    def rows(a):
        out = nl.ndarray((64, 8), dtype=a.dtype, buffer=nl.shared_hbm)
        ih, iw = nl.arange(8)[None, :, None], nl.arange(8)[None, None, :]
        s = nl.sum(nl.load(a), axis=2, mask=((ih < 6) & (iw < 5)))
        nl.store(out[:, 0:6], value=s[:, 0:6])
        return out
    np.testing.assert_allclose(nki.simulate_kernel(rows, a)[:, :6], a[:, :6, :5].sum(axis=2), rtol=1e-5, atol=1e-6)


def test_load_transpose2d(rng):
    @nki.jit
    def k(a):
        out = nl.ndarray((a.shape[1], 96), dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load_transpose2d(a[32:128, :]))
        return out
    a = rng.standard_normal((128, 64)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(k, a), a[32:128].T)

    @nki.jit
    def wide(a):
        nl.load_transpose2d(a)
    with pytest.raises(nki.KernelError, match="dim 1 of .* becomes the partition dim"):
        nki.simulate_kernel(wide, np.zeros((4, 200), np.float32))


@pytest.mark.parametrize("fn, ref", [(lambda t: nl.divide(1.0, t), lambda a: 1.0 / a),
                                     (lambda t: nl.subtract(2.0, t), lambda a: 2.0 - a),
                                     (lambda t: nl.divide(3.0, t), lambda a: 3.0 / a),
                                     (lambda t: 1.0 / t, lambda a: 1.0 / a)])
def test_number_on_the_left_is_one_instruction(fn, ref, rng):
    """`nl.divide(1.0, sum)` (Beta 1 attention's softmax) and `nl.subtract(2.0, t)`: one tensor_scalar."""
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=fn(nl.load(a)))
        return out
    a = (rng.random((128, 64)) + 0.5).astype(np.float32)
    np.testing.assert_allclose(nki.simulate_kernel(k, a), ref(a), rtol=1e-6)
    r = nki.benchmark(k, a)
    assert sum(engine == "vector" for engine, *_ in r.instructions) == 1


def test_index_expressions_on_swapped_axes_transpose_the_hbm_access(rng):
    """`out[if_out, ip_out]` with ip_out on axis 0 (Beta 1 SD attention's store): the access's dims
    follow the index expressions' axes, so a [64, 128] tile lands transposed in a [128, 64] tensor."""
    @nki.jit
    def k(a):
        out = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
        ip, jf = nl.arange(a.shape[0])[:, None], nl.arange(a.shape[1])[None, :]
        nl.store(out[jf, ip], value=nl.load(a[ip, jf]))
        return out
    a = rng.standard_normal((64, 128)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(k, a), a.T)


def test_sliding_windows_named_by_mgrid_axes(rng):
    """select_and_scatter (Beta 1 vision): `t[w.p, 2 * i + w.y, 2 * w.x + w.z]` with w = nl.mgrid[...]
    names dims out of the tile's order; the view's dims follow the axes (p, x, y, z)."""
    @nki.jit
    def k(a):
        out = nl.ndarray((16, 3, 2, 2), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        w = nl.mgrid[0:16, 0:3, 0:2, 0:2]
        nl.store(out, value=nl.copy(t[w.p, 1 + w.y, 2 * w.x + w.z]))
        return out
    a = rng.standard_normal((16, 4, 6)).astype(np.float32)
    want = np.stack([np.stack([a[:, 1 + y, 2 * x:2 * x + 2] for y in range(2)], axis=1) for x in range(3)], axis=1)
    np.testing.assert_array_equal(nki.simulate_kernel(k, a), want)


def test_size_one_free_dims_broadcast_in_elementwise_ops(rng):
    """nl.equal((128, 4, 1, 1), (128, 4, 3, 3)): the size-1 dims repeat (stride 0), as NumPy broadcasts."""
    @nki.jit
    def k(a, b):
        out = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.subtract(nl.load(b), nl.load(a)))
        return out
    a = rng.standard_normal((128, 4, 1, 1)).astype(np.float32)
    b = rng.standard_normal((128, 4, 3, 3)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(k, a, b), b - a)
