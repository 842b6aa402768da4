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
