"""nisa.tensor_tensor_scan against a NumPy reference of NKI's semantics."""
import numpy as np
import pytest
from nki_testing import bf16, f32

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl


def reference(data0, data1, initial, op0, op1):
    """result[:, i] = op1(op0(data0[:, i], result[:, i-1]), data1[:, i]), in fp32."""
    out = np.empty(data0.shape, np.float32)
    carry = np.broadcast_to(np.asarray(initial, np.float32).reshape(-1), (data0.shape[0],)).astype(np.float32)
    for i in range(data0.shape[1]):
        carry = op1(op0(data0[:, i].astype(np.float32), carry), data1[:, i].astype(np.float32)).astype(np.float32)
        out[:, i] = carry
    return out


def scan_kernel(op0, op1, initial_column, out_dtype=nl.float32):
    @nki.jit
    def k(a, b, init):
        out = nl.ndarray(a.shape, dtype=out_dtype, buffer=nl.shared_hbm)
        initial = nl.load(init) if initial_column else 0.25
        nl.store(out, value=nisa.tensor_tensor_scan(nl.load(a), nl.load(b), initial, op0, op1, dtype=out_dtype))
        return out
    return k


def test_linear_recurrence_like_mamba(rng):
    """h[t] = a[t] * h[t-1] + b[t]: the selective-scan recurrence."""
    a = rng.uniform(0.5, 1.0, (128, 200)).astype(np.float32)
    b = rng.standard_normal((128, 200)).astype(np.float32)
    init = np.zeros((128, 1), np.float32)
    y = nki.simulate_kernel(scan_kernel(nl.multiply, nl.add, False), a, b, init)
    np.testing.assert_allclose(y, reference(a, b, 0.25, np.multiply, np.add), rtol=1e-6, atol=1e-6)


def test_column_initial_and_max_add(rng):
    a = rng.standard_normal((64, 48)).astype(np.float32)
    b = rng.standard_normal((64, 48)).astype(np.float32)
    init = rng.standard_normal((64, 1)).astype(np.float32)
    y = nki.simulate_kernel(scan_kernel(nl.maximum, nl.add, True), a, b, init)
    np.testing.assert_allclose(y, reference(a, b, init, np.maximum, np.add), rtol=1e-6, atol=1e-6)


def test_bf16_output_is_rounded_per_element(rng):
    a = bf16(rng.uniform(0.5, 1.0, (32, 64)))
    b = bf16(rng.standard_normal((32, 64)))
    init = np.zeros((32, 1), np.float32)
    y = nki.simulate_kernel(scan_kernel(nl.multiply, nl.subtract, False, nl.bfloat16), a, b, init)
    # The carry stays fp32 in the engine; only the stored elements are rounded.
    expect = bf16(reference(f32(a), f32(b), 0.25, np.multiply, np.subtract))
    np.testing.assert_array_equal(f32(y), f32(expect))


def test_scan_cost_is_two_cycles_per_element(rng):
    """S11: the scan costs max(MIN_II, 2N) VectorE cycles; a bf16 tensor_tensor add with both inputs in
    SBUF costs N / 2 on trn2 (S2 performance mode). N = 512: 1024 - 256 = 768 cycles more, at
    0.96 GHz (trn2 vector.freq) 800 ns."""
    a = bf16(rng.standard_normal((128, 512)))

    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        s = nisa.tensor_tensor(t, t, nl.add)
        nl.store(out, value=nisa.tensor_tensor_scan(t, s, 0.0, nl.multiply, nl.add))
        return out
    r = nki.benchmark(k, a)
    assert "vector: tensor_tensor_scan" in r.kernel_text
    vector = sorted((rec for rec in r.instructions if rec[0] == "vector"), key=lambda rec: rec[1])
    tt, scan = (end - start for _, _, start, end, _ in vector[:2])  # then a wait for the store's semaphore
    assert scan - tt == pytest.approx(800.0, abs=0.01)


def test_errors():
    a = np.ones((16, 8), np.float32)
    b = np.ones((16, 4), np.float32)

    @nki.jit
    def mismatch(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.tensor_tensor_scan(nl.load(a), nl.load(b), 0.0, nl.multiply, nl.add))
        return out
    with pytest.raises(nki.KernelError, match="tensor_tensor_scan: shapes"):
        nki.simulate_kernel(mismatch, a, b)

    @nki.jit
    def reverse(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        nl.store(out, value=nisa.tensor_tensor_scan(t, t, 0.0, nl.multiply, nl.add, reverse0=True))
        return out
    with pytest.raises(nki.Unsupported, match="reverse"):
        nki.simulate_kernel(reverse, a)
