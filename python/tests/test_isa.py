"""nisa functions, one instruction each, against NumPy."""
import numpy as np
import pytest
from nki_testing import BF16, bf16, f32

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl


def run1(fn, *arrays, out_shape=None, out_dtype=nl.float32):
    @nki.jit
    def k(*args):
        tiles = [nl.load(a) for a in args]
        res = fn(*tiles)
        out = nl.ndarray(out_shape or res.shape, dtype=out_dtype, buffer=nl.shared_hbm)
        nl.store(out, value=res if res.buffer == nl.sbuf else nl.copy(res))
        return out
    return nki.simulate_kernel(k, *arrays)


def test_nc_matmul(rng):
    s, m = bf16(rng.standard_normal((64, 32))), bf16(rng.standard_normal((64, 100)))
    np.testing.assert_allclose(run1(nisa.nc_matmul, s, m), f32(s).T @ f32(m), rtol=1e-4, atol=1e-3)


def test_nc_transpose(rng):
    a = rng.standard_normal((32, 48)).astype(np.float32)
    np.testing.assert_array_equal(run1(nisa.nc_transpose, a), a.T)


def test_activation_scale_bias_and_reduce(rng):
    a = rng.standard_normal((16, 40)).astype(np.float32)
    bias = rng.standard_normal((16, 1)).astype(np.float32)

    @nki.jit
    def k(a, bias):
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        sums = nl.ndarray((a.shape[0], 1), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((a.shape[0], 1), nl.float32)
        y = nisa.activation(nl.exp, nl.load(a), bias=nl.load(bias), scale=0.5, reduce_op=nl.add, reduce_res=acc)
        nl.store(out, value=y)
        nl.store(sums, value=acc)
        return out, sums
    y, sums = nki.simulate_kernel(k, a, bias)
    expect = np.exp(a * 0.5 + bias)
    np.testing.assert_allclose(y, expect, rtol=1e-5)
    np.testing.assert_allclose(sums, expect.sum(axis=1, keepdims=True), rtol=1e-4)


def test_tensor_tensor(rng):
    a, b = bf16(rng.standard_normal((8, 16))), bf16(rng.standard_normal((8, 16)))
    y = run1(lambda x, z: nisa.tensor_tensor(x, z, op=nl.multiply), a, b, out_dtype=nl.bfloat16)
    assert y.dtype == BF16
    np.testing.assert_array_equal(f32(y), f32(bf16(f32(a) * f32(b))))


@pytest.mark.parametrize("engine", [nisa.vector_engine, nisa.gpsimd_engine])
def test_tensor_scalar_two_ops(engine, rng):
    a = rng.standard_normal((8, 16)).astype(np.float32)
    y = run1(lambda x: nisa.tensor_scalar(x, nl.multiply, 2.0, op1=nl.add, operand1=-1.0, engine=engine), a)
    np.testing.assert_allclose(y, a * 2 - 1, rtol=1e-6)


def test_tensor_scalar_column(rng):
    a, c = rng.standard_normal((8, 16)).astype(np.float32), rng.standard_normal((8, 1)).astype(np.float32)
    np.testing.assert_allclose(run1(lambda x, col: nisa.tensor_scalar(x, nl.subtract, col), a, c), a - c, rtol=1e-6)


@pytest.mark.parametrize("op,ref", [(nl.add, np.sum), (nl.maximum, np.max), (nl.minimum, np.min)])
def test_tensor_reduce(op, ref, rng):
    a = rng.standard_normal((8, 64)).astype(np.float32)
    y = run1(lambda x: nisa.tensor_reduce(op, x, axis=1, keepdims=True), a)
    np.testing.assert_allclose(y, ref(a, axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("engine", ["vector", "scalar", "gpsimd"])
def test_tensor_copy(engine, rng):
    a = rng.standard_normal((8, 16)).astype(np.float32)
    y = run1(lambda x: nisa.tensor_copy(x, dtype=nl.bfloat16, engine=engine), a, out_dtype=nl.bfloat16)
    np.testing.assert_array_equal(f32(y), f32(bf16(a)))


def test_memset_and_iota():
    @nki.jit
    def k(dummy):
        out = nl.ndarray((2, 16, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out[0], value=nisa.memset((16, 8), 7.0, nl.float32, engine=nisa.gpsimd_engine))
        nl.store(out[1], value=nisa.iota(nl.arange(16)[:, None] * 8 + nl.arange(8)[None, :] + 1, nl.float32))
        return out
    y = nki.simulate_kernel(k, np.zeros((1, 1), np.float32))
    np.testing.assert_array_equal(y[0], np.full((16, 8), 7.0))
    np.testing.assert_array_equal(y[1], np.arange(1, 129).reshape(16, 8))


def test_dma_copy_queue_and_engine(rng):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a, queue=3, engine=nisa.gpsimd_engine)
        nisa.dma_copy(dst=out, src=t, queue=5)
        return out
    a = rng.standard_normal((32, 8)).astype(np.float32)
    r = nki.benchmark(k, a)
    np.testing.assert_array_equal(r.outputs, a)
    assert "gpsimd: dma_copy" in r.kernel_text and "queue=3" in r.kernel_text and "queue=5" in r.kernel_text
    assert sorted({q for (_, _, q, *_rest) in r.dma}) == [3, 5]


def test_scan_runs():  # values: test_scan.py
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.tensor_tensor_scan(nl.load(a), nl.load(a), 0.0, nl.multiply, nl.add))
        return out
    np.testing.assert_array_equal(nki.simulate_kernel(k, np.zeros((4, 4), np.float32)), np.zeros((4, 4)))
