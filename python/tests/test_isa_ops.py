"""The ALU ops and activation functions of sim/kernel/alu_act_tables.h, each computed by the
simulator (nl.* / nisa.* calls) and checked against NumPy (scipy-free references written here)."""
import math

import numpy as np
import pytest
from nki_testing import f32

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki import ops_table
from nsim.nki.errors import KernelError


def run_binary(fn, a, b):
    @nki.jit
    def k(a, b):
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=fn(nl.load(a), nl.load(b)))
        return out
    return nki.simulate_kernel(k, a, b)


def run_unary(fn, a):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=fn(nl.load(a)))
        return out
    return nki.simulate_kernel(k, a)


def _ints(rng, shape, lo=-1000, hi=1000):
    return rng.integers(lo, hi, size=shape).astype(np.float32)


ALU_REFERENCES = {
    "equal": np.equal, "not_equal": np.not_equal, "greater": np.greater, "greater_equal": np.greater_equal,
    "less": np.less, "less_equal": np.less_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "left_shift": np.left_shift, "right_shift": np.right_shift, "mod": np.fmod,
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
    "minimum": np.minimum, "divide": np.divide, "power": np.power,
}
INTEGER_OPS = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")


def test_every_nl_alu_op_of_the_table_has_a_reference():
    assert set(ops_table.nl_alu_names()) == set(ALU_REFERENCES)


@pytest.mark.parametrize("name", sorted(ALU_REFERENCES))
def test_alu_op_tensor_tensor(name, rng):
    shape = (32, 24)
    a = _ints(rng, shape)
    b = _ints(rng, shape, 0, 31) if "shift" in name else _ints(rng, shape)
    if name in ("divide", "mod"):
        b[b == 0] = 7
    if name == "power":
        a, b = np.abs(a) / 100 + 0.5, (b % 4).astype(np.float32)
    if name.startswith(("logical", "equal", "not_equal")) or name in ("greater", "less"):
        b[::3] = a[::3]  # equal elements too
        a[::5] = 0
    got = run_binary(getattr(nl, name), a, b)
    if name in INTEGER_OPS:
        want = ALU_REFERENCES[name](a.astype(np.int32), b.astype(np.int32)).astype(np.float32)
    else:
        want = f32(ALU_REFERENCES[name](a, b))
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_comparison_with_a_number_and_a_column(rng):
    a = _ints(rng, (16, 10), -5, 5)
    col = _ints(rng, (16, 1), -5, 5)
    np.testing.assert_array_equal(run_binary(lambda x, c: nl.greater(x, c), a, col), f32(a > col))
    np.testing.assert_array_equal(run_unary(lambda x: nl.less_equal(x, 2.0), a), f32(a <= 2))


def test_tensor_scalar_with_comparison_then_multiply(rng):
    a = rng.standard_normal((16, 12)).astype(np.float32)
    got = run_unary(lambda x: nisa.tensor_scalar(x, nl.greater_equal, 0.25, op1=nl.multiply, operand1=3.0), a)
    np.testing.assert_array_equal(got, f32((a >= 0.25) * 3.0))


def test_logical_not_and_invert(rng):
    a = _ints(rng, (8, 16), -3, 3)
    np.testing.assert_array_equal(run_unary(nl.logical_not, a), f32(a == 0))
    np.testing.assert_array_equal(run_unary(nl.invert, a), f32(np.invert(a.astype(np.int32))))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _erf(x):
    return np.vectorize(math.erf)(x.astype(np.float64))


def _softplus(x):
    return np.log1p(np.exp(x))


ACT_REFERENCES = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
    "reciprocal": lambda x: 1 / x, "tanh": np.tanh, "sigmoid": _sigmoid, "silu": lambda x: x * _sigmoid(x),
    "gelu": lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))), "relu": lambda x: np.maximum(x, 0),
    "square": np.square, "identity": lambda x: x,
    "abs": np.abs, "sign": np.sign, "sin": np.sin, "cos": np.cos, "arctan": np.arctan, "erf": _erf,
    "erf_dx": lambda x: 2 / np.sqrt(np.pi) * np.exp(-x * x),
    "gelu_apprx_tanh": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
    "gelu_apprx_sigmoid": lambda x: x * _sigmoid(1.702 * x),
    "gelu_dx": lambda x: 0.5 * (1 + _erf(x / np.sqrt(2))) + x * np.exp(-x * x / 2) / np.sqrt(2 * np.pi),
    "gelu_apprx_sigmoid_dx": lambda x: _sigmoid(1.702 * x) * (1 + 1.702 * x * (1 - _sigmoid(1.702 * x))),
    "silu_dx": lambda x: _sigmoid(x) * (1 + x * (1 - _sigmoid(x))),
    "softplus": _softplus, "mish": lambda x: x * np.tanh(_softplus(x)),
}
POSITIVE_ONLY = ("log", "sqrt", "rsqrt", "reciprocal")


def test_every_activation_of_the_table_has_a_reference():
    assert set(ops_table.nl_activation_names()) == set(ACT_REFERENCES)


@pytest.mark.parametrize("name", sorted(ACT_REFERENCES))
def test_activation_function(name, rng):
    a = rng.standard_normal((32, 40)).astype(np.float32) * 3
    if name in POSITIVE_ONLY:
        a = np.abs(a) + 0.1
    got = run_unary(getattr(nl, name), a)
    np.testing.assert_allclose(got, f32(ACT_REFERENCES[name](a.astype(np.float64))), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", ["abs", "gelu_apprx_tanh", "silu_dx"])
def test_activation_op_through_nisa_with_scale_and_bias(name, rng):
    a = rng.standard_normal((16, 20)).astype(np.float32)
    got = run_unary(lambda x: nisa.activation(getattr(nl, name), x, bias=None, scale=2.0), a)
    np.testing.assert_allclose(got, f32(ACT_REFERENCES[name](2.0 * a.astype(np.float64))), rtol=2e-5, atol=2e-6)


# ------------------------------------------------------------------ new instructions: values
def test_scalar_tensor_tensor_both_forms(rng):
    a, b = rng.standard_normal((2, 32, 48)).astype(np.float32)
    col = rng.standard_normal((32, 1)).astype(np.float32)

    @nki.jit
    def k(a, b, col):
        x, y, c = nl.load(a), nl.load(b), nl.load(col)
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        out2 = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        nisa.scalar_tensor_tensor(dst=t, data=x, op0=nl.subtract, operand0=c, op1=nl.multiply, operand1=y)
        nl.store(out, value=t)
        nl.store(out2, value=nisa.scalar_tensor_tensor(data=x, op0=nl.multiply, operand0=2.0, op1=nl.greater,
                                                       operand1=y))
        return out, out2

    got, got2 = nki.simulate_kernel(k, a, b, col)
    np.testing.assert_array_equal(got, (a - col) * b)
    np.testing.assert_array_equal(got2, f32(a * 2 > b))


def test_tensor_scalar_reduce_both_forms(rng):
    a = rng.standard_normal((64, 40)).astype(np.float32)

    @nki.jit
    def k(a):
        x = nl.load(a)
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        sums = nl.ndarray((a.shape[0], 1), dtype=nl.float32, buffer=nl.shared_hbm)
        maxes = nl.ndarray((a.shape[0], 1), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        s = nl.ndarray((a.shape[0], 1), dtype=nl.float32, buffer=nl.sbuf)
        m = nl.ndarray((a.shape[0], 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar_reduce(dst=t, data=x, op0=nl.multiply, operand0=3.0, reduce_op=nl.add, reduce_res=s)
        nisa.tensor_scalar_reduce(data=x, op0=nl.add, operand0=1.0, reduce_op=nl.maximum, reduce_res=m)
        nl.store(out, value=t)
        nl.store(sums, value=s)
        nl.store(maxes, value=m)
        return out, sums, maxes

    out, sums, maxes = nki.simulate_kernel(k, a)
    np.testing.assert_array_equal(out, a * np.float32(3))
    np.testing.assert_allclose(sums[:, 0], (a * np.float32(3)).sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(maxes[:, 0], (a + np.float32(1)).max(axis=1))


def test_tensor_copy_predicated(rng):
    a, b = rng.standard_normal((2, 16, 24)).astype(np.float32)

    @nki.jit
    def k(a, b):
        x, y = nl.load(a), nl.load(b)
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        pred = nl.greater(x, 0.0)
        nisa.tensor_copy_predicated(dst=y, src=x, predicate=pred)
        nl.store(out, value=y)
        return out

    np.testing.assert_array_equal(nki.simulate_kernel(k, a, b), np.where(a > 0, a, b))


def test_max8_and_find_index8(rng):
    a = rng.permutation(64 * 100).reshape(64, 100).astype(np.float32)  # distinct values: one index each

    @nki.jit
    def k(a):
        x = nl.load(a)
        top = nl.ndarray((a.shape[0], 8), dtype=nl.float32, buffer=nl.shared_hbm)
        idx = nl.ndarray((a.shape[0], 8), dtype=nl.int32, buffer=nl.shared_hbm)
        m = nisa.max8(src=x)
        i = nl.ndarray((a.shape[0], 8), dtype=nl.int32, buffer=nl.sbuf)
        nisa.nc_find_index8(dst=i, data=x, vals=m)
        nl.store(top, value=m)
        nl.store(idx, value=i)
        return top, idx

    top, idx = nki.simulate_kernel(k, a)
    want_idx = np.argsort(-a, axis=1)[:, :8]
    np.testing.assert_array_equal(top, np.take_along_axis(a, want_idx, axis=1))
    np.testing.assert_array_equal(idx, want_idx)


def test_max8_needs_eight_per_partition():
    @nki.jit
    def k(a):
        out = nl.ndarray((a.shape[0], 8), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.max8(src=nl.load(a)))
        return out

    with pytest.raises(KernelError, match="max8 needs at least 8"):
        nki.simulate_kernel(k, np.zeros((4, 5), np.float32))



# ------------------------------------------------------------------ cost: cycles from S11's formulas
# trn1 (configs/trn1.yaml): VectorE at 1.12 GHz, MIN_II 64 cycles, pipeline latency 100 cycles; an
# instruction's duration is (II + 100) cycles. N = 512 free elements per partition.
VECTOR_GHZ, LATENCY = 1.12, 100


def _first_vector_duration_ns(body, arrays, dtypes):
    """The duration of the first VectorE instruction of a kernel that loads `arrays` (as `dtypes`)
    into SBUF and calls body(tiles) (on trn1)."""
    @nki.jit
    def k(*hbm):
        tiles = [nl.load(a, dtype=d) for a, d in zip(hbm, dtypes)]
        res = body(tiles)
        out = nl.ndarray(res.shape, dtype=res.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=res)
        return out

    r = nki.benchmark(k, *arrays, config="trn1")
    start, end = next((s, e) for engine, _i, s, e, _w in r.instructions if engine == "vector")
    return end - start


def _cycles_ns(cycles):
    return (cycles + LATENCY) / VECTOR_GHZ


def _ones(n=512):
    return np.ones((128, n), np.float32)


def test_cost_scalar_tensor_tensor_fp32_is_2n():
    """S11: 2N off the fast path: 1024 cycles."""
    got = _first_vector_duration_ns(
        lambda t: nisa.scalar_tensor_tensor(data=t[0], op0=nl.add, operand0=1.0, op1=nl.multiply, operand1=t[1]),
        [_ones(), _ones()], [nl.float32, nl.float32])
    assert got == pytest.approx(_cycles_ns(2 * 512), abs=0.01)


def test_cost_scalar_tensor_tensor_bf16_subtract_multiply_is_n():
    """S11: N when data and operand1 are bf16, op0=subtract, op1=multiply, N even: 512 cycles."""
    got = _first_vector_duration_ns(
        lambda t: nisa.scalar_tensor_tensor(data=t[0], op0=nl.subtract, operand0=1.0, op1=nl.multiply,
                                            operand1=t[1]),
        [_ones(), _ones()], [nl.bfloat16, nl.bfloat16])
    assert got == pytest.approx(_cycles_ns(512), abs=0.01)


def test_cost_tensor_scalar_reduce_is_n_plus_min_ii():
    """S11: max(MIN_II, N) + MIN_II = 512 + 64 cycles."""
    def body(t):
        acc = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        return nisa.tensor_scalar_reduce(data=t[0], op0=nl.multiply, operand0=2.0, reduce_op=nl.add,
                                         reduce_res=acc)
    assert _first_vector_duration_ns(body, [_ones()], [nl.float32]) == pytest.approx(_cycles_ns(512 + 64), abs=0.01)


def test_cost_tensor_copy_predicated_both_in_sbuf_is_2n():
    """S11: max(MIN_II, 2N) with src and predicate both in SBUF: 1024 cycles."""
    def body(t):
        nisa.tensor_copy_predicated(dst=t[2], src=t[0], predicate=t[1])
        return t[2]
    got = _first_vector_duration_ns(body, [_ones(), _ones(), _ones()], [nl.float32] * 3)
    assert got == pytest.approx(_cycles_ns(2 * 512), abs=0.01)


@pytest.mark.parametrize("n,cycles", [(512, 512), (32, 64)])  # S11 "N", and MIN_II = 64 below it
def test_cost_max8_and_find_index8(n, cycles):
    got = _first_vector_duration_ns(lambda t: nisa.max8(src=t[0]), [_ones(n)], [nl.float32])
    assert got == pytest.approx(_cycles_ns(cycles), abs=0.01)

    def find(t):
        vals = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=vals, src=t[0][:, 0:8], engine=nisa.gpsimd_engine)
        return nisa.nc_find_index8(data=t[0], vals=vals)
    assert _first_vector_duration_ns(find, [_ones(n)], [nl.float32]) == pytest.approx(_cycles_ns(cycles), abs=0.01)


# ------------------------------------------------------------------ element types
NEW_DTYPES = ["int8", "uint8", "int16", "uint16", "uint32", "bool_", "float8_e4m3", "float8_e5m2", "float8_e4m3fn"]


def _host(name, rng, shape=(16, 24)):
    d = getattr(nl, name).np_dtype
    if name == "bool_":
        return rng.integers(0, 2, size=shape).astype(bool)
    if d.kind in "iu":
        info = np.iinfo(d)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape, endpoint=True).astype(d)
    return (rng.standard_normal(shape) * 4).astype(np.float32).astype(d)


@pytest.mark.parametrize("name", NEW_DTYPES)
def test_dtype_round_trips_through_sbuf(name, rng):
    a = _host(name, rng)

    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a))
        return out

    got = nki.simulate_kernel(k, a)
    assert got.dtype == a.dtype
    np.testing.assert_array_equal(got.view(np.uint8), a.view(np.uint8))


@pytest.mark.parametrize("name", ["float8_e4m3", "float8_e5m2", "float8_e4m3fn"])
def test_fp8_cast_rounds_as_ml_dtypes(name, rng):
    a = (rng.standard_normal((32, 64)) * 8).astype(np.float32)
    a[0, :4] = [0.3, 464.0, 248.0, -1e-4]  # a tie to even (e4m3fn), a tie to inf (e4m3), a subnormal
    dt = getattr(nl, name)

    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=dt, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.tensor_copy(nl.load(a), dtype=dt))
        return out

    got, want = nki.simulate_kernel(k, a), a.astype(dt.np_dtype)
    assert np.array_equal(np.isnan(got.astype(np.float32)), np.isnan(want.astype(np.float32)))
    ok = ~np.isnan(want.astype(np.float32))
    np.testing.assert_array_equal(got.astype(np.float32)[ok], want.astype(np.float32)[ok])


def test_integer_arithmetic_and_bitwise_on_integer_tiles(rng):
    a = rng.integers(-100, 100, size=(16, 32)).astype(np.int8)
    b = rng.integers(0, 255, size=(16, 32)).astype(np.uint8)

    @nki.jit
    def k(a, b):
        x, y = nl.load(a), nl.load(b)
        s = nl.ndarray(a.shape, dtype=nl.int16, buffer=nl.shared_hbm)
        m = nl.ndarray(a.shape, dtype=nl.uint8, buffer=nl.shared_hbm)
        nl.store(s, value=nl.add(x, y, dtype=nl.int16))
        nl.store(m, value=nl.bitwise_and(y, 0x0F, dtype=nl.uint8))
        return s, m

    s, m = nki.simulate_kernel(k, a, b)
    np.testing.assert_array_equal(s, a.astype(np.int16) + b.astype(np.int16))
    np.testing.assert_array_equal(m, b & 0x0F)


def test_integer_store_saturates(rng):
    a = np.array([[300.0, -5.0, 2.5, 3.5, 70000.0, -1.0]], np.float32)

    @nki.jit
    def k(a):
        u8 = nl.ndarray(a.shape, dtype=nl.uint8, buffer=nl.shared_hbm)
        u16 = nl.ndarray(a.shape, dtype=nl.uint16, buffer=nl.shared_hbm)
        x = nl.load(a)
        nl.store(u8, value=nisa.tensor_copy(x, dtype=nl.uint8))
        nl.store(u16, value=nisa.tensor_copy(x, dtype=nl.uint16))
        return u8, u16

    u8, u16 = nki.simulate_kernel(k, a)
    np.testing.assert_array_equal(u8, [[255, 0, 2, 4, 255, 0]])  # nearest even, saturated
    np.testing.assert_array_equal(u16, [[300, 0, 2, 4, 65535, 0]])


def test_comparison_into_a_bool_tile(rng):
    a = rng.standard_normal((8, 16)).astype(np.float32)

    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=nl.bool_, buffer=nl.shared_hbm)
        nl.store(out, value=nl.greater(nl.load(a), 0.0, dtype=nl.bool_))
        return out

    np.testing.assert_array_equal(nki.simulate_kernel(k, a), a > 0)


# ------------------------------------------------------------------ affine_select
def _causal(a, fill, offset=0):
    p, i = np.indices(a.shape)
    return np.where(offset + p - i >= 0, a, np.float32(fill)).astype(np.float32)


def _affine_kernel(cmp_op, fill, offset):
    @nki.jit
    def k(a):
        x = nl.load(a)
        out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        nisa.affine_select(dst=t, pattern=[[-1, a.shape[1]]], offset=offset, channel_multiplier=1, on_true_tile=x,
                           on_false_value=fill, cmp_op=cmp_op)
        nl.store(out, value=t)
        return out
    return k


@pytest.mark.parametrize("offset", [0, 5])
def test_affine_select_causal_mask(offset, rng):
    a = rng.standard_normal((64, 96)).astype(np.float32)
    got = nki.simulate_kernel(_affine_kernel(nl.greater_equal, -30000.0, offset), a)
    np.testing.assert_array_equal(got, _causal(a, -30000.0, offset))


def test_affine_select_other_comparison(rng):
    a = rng.standard_normal((16, 16)).astype(np.float32)
    got = nki.simulate_kernel(_affine_kernel(nl.equal, 0.0, 0), a)  # the diagonal only
    np.testing.assert_array_equal(got, np.where(np.eye(16, dtype=bool), a, 0).astype(np.float32))


def test_cost_affine_select_is_gpsimd_start_plus_n():
    """S11: 150 + N GpSimd cycles; trn1 GpSimd at 1.4 GHz with an 8-cycle pipeline latency:
    N = 512 -> (150 + 512 + 8) cycles = 478.57 ns."""
    r = nki.benchmark(_affine_kernel(nl.greater_equal, 0.0, 0), np.ones((128, 512), np.float32), config="trn1")
    start, end = next((s, e) for engine, _i, s, e, _w in r.instructions if engine == "gpsimd")
    assert end - start == pytest.approx((150 + 512 + 8) / 1.4, abs=0.01)


@pytest.mark.parametrize("op, ref", [(nl.max, np.max), (np.max, np.max), (nl.add, np.sum)])
def test_tensor_reduce_negate_both_forms(op, ref, rng):
    """negate=True writes the reduction's negative (attention kernels keep -max for exp(x - max)), in the
    same instruction: its cost is tensor_reduce's (fp32: N = 512 cycles on trn1)."""
    a = rng.standard_normal((128, 512)).astype(np.float32)
    want = -ref(a, axis=1, keepdims=True)

    def reduced(fn):
        @nki.jit
        def k(a):
            out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
            nl.store(out, value=fn(nl.load(a)))
            return out
        return nki.simulate_kernel(k, a)
    got = reduced(lambda t: nisa.tensor_reduce(op, t, axis=(1,), negate=True, keepdims=True))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)

    def dst_form(t):
        r = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=r, op=op, data=t, axis=1, negate=True)
        return r
    np.testing.assert_allclose(reduced(dst_form), want, rtol=1e-5, atol=1e-4)
    plain = _first_vector_duration_ns(lambda t: nisa.tensor_reduce(op, t[0], axis=(1,)), [a], [nl.float32])
    negated = _first_vector_duration_ns(lambda t: nisa.tensor_reduce(op, t[0], axis=(1,), negate=True), [a],
                                        [nl.float32])
    assert negated == plain == pytest.approx(_cycles_ns(512), abs=0.01)
