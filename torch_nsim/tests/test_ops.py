"""Numerics of every op the neuron device runs, against PyTorch's CPU
kernels on the same inputs (the device computes in fp32 and rounds each
op's result to its dtype, as the CPU does)."""
import pytest
import torch
import torch.nn.functional as F

from torch_testing import executions, mark

torch.manual_seed(0)

A = torch.randn(4, 64)
B = torch.randn(4, 64)
POS = torch.rand(4, 64) + 0.5
ROW = torch.randn(64)
M1 = torch.randn(16, 32)
M2 = torch.randn(32, 24)
B1 = torch.randn(3, 16, 32)
B2 = torch.randn(3, 32, 8)
W = torch.randn(64)
BIAS = torch.randn(64)
E = torch.randn(10, 64)
IDX = torch.tensor([3, 0, 9, 3])

# name -> (function, inputs, tolerance for fp32)
CASES = {
    "add": (lambda a, b: a + b, (A, B), 0),
    "add_alpha": (lambda a, b: torch.add(a, b, alpha=2.5), (A, B), 1e-6),
    "add_scalar": (lambda a: a + 1e-6, (A,), 0),
    "add_broadcast": (lambda a, r: a + r, (A, ROW), 0),
    "sub": (lambda a, b: a - b, (A, B), 0),
    "rsub": (lambda a: 1.0 - a, (A,), 0),
    "mul": (lambda a, b: a * b, (A, B), 0),
    "mul_scalar": (lambda a: a * 3.0, (A,), 0),
    "div": (lambda a, b: a / b, (A, POS), 1e-6),
    "maximum": (torch.maximum, (A, B), 0),
    "minimum": (torch.minimum, (A, B), 0),
    "pow": (lambda a: a.pow(2), (A,), 1e-6),
    "neg": (torch.neg, (A,), 0),
    "abs": (torch.abs, (A,), 0),
    "exp": (torch.exp, (A,), 1e-5),
    "log": (torch.log, (POS,), 1e-5),
    "sqrt": (torch.sqrt, (POS,), 1e-5),
    "rsqrt": (torch.rsqrt, (POS,), 1e-5),
    "reciprocal": (torch.reciprocal, (POS,), 1e-5),
    "relu": (torch.relu, (A,), 0),
    "tanh": (torch.tanh, (A,), 1e-5),
    "sigmoid": (torch.sigmoid, (A,), 1e-5),
    "silu": (F.silu, (A,), 1e-5),
    "gelu": (F.gelu, (A,), 1e-5),
    "gelu_tanh": (lambda a: F.gelu(a, approximate="tanh"), (A,), 1e-5),
    "sum_dim": (lambda a: a.sum(-1), (A,), 1e-5),
    "sum_all": (lambda a: a.sum(), (A,), 1e-5),
    "mean_dim": (lambda a: a.mean(-1, keepdim=True), (A,), 1e-5),
    "mean_outer": (lambda a: a.mean(0), (A,), 1e-5),
    "amax": (lambda a: a.amax(-1), (A,), 0),
    "var": (lambda a: a.var(-1), (A,), 1e-5),
    "softmax": (lambda a: torch.softmax(a, -1), (A,), 1e-5),
    "softmax_dim0": (lambda a: torch.softmax(a, 0), (A,), 1e-5),
    "layer_norm": (lambda a, w, b: F.layer_norm(a, [64], w, b), (A, W, BIAS), 1e-5),
    "rms_norm": (lambda a, w: F.rms_norm(a, [64], w, 1e-6), (A, W), 1e-5),
    "mm": (torch.mm, (M1, M2), 1e-5),
    "bmm": (torch.bmm, (B1, B2), 1e-5),
    "matmul_3d_2d": (torch.matmul, (B1, M2), 1e-5),
    "linear": (lambda x, w, b: F.linear(x, w, b), (M1, M2.t().contiguous(), torch.randn(24)), 1e-5),
    "addmm": (lambda b, x, y: torch.addmm(b, x, y, beta=0.5, alpha=2.0), (torch.randn(24), M1, M2), 1e-5),
    "cat": (lambda a, b: torch.cat([a, b], dim=1), (A, B), 0),
    "cat_dim0": (lambda a, b: torch.cat([a, b]), (A, B), 0),
    "embedding": (lambda e, i: F.embedding(i, e), (E, IDX), 0),
    "index_select": (lambda e, i: e.index_select(0, i), (E, IDX), 0),
    "slice_index": (lambda a: a[1:3, ::2] * 2, (A,), 0),
    "transpose_contiguous": (lambda a: a.t().contiguous(), (A,), 0),
    "clone": (lambda a: a.clone(), (A,), 0),
    "inplace_add": (lambda a, b: a.clone().add_(b), (A, B), 0),
    "inplace_mul_scalar": (lambda a: a.clone().mul_(0.5), (A,), 0),
    "to_bf16": (lambda a: a.float().to(torch.bfloat16), (A,), 0),
    "zeros_like_fill": (lambda a: torch.zeros_like(a) + 1, (A,), 0),
}


def _device(t):
    return t.to("neuron")


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_op_matches_cpu(name, dtype):
    fn, inputs, tol = CASES[name]
    cast = [t.to(dtype) if t.is_floating_point() else t for t in inputs]
    expected = fn(*cast)
    mark()
    got = fn(*[_device(t) for t in cast])
    assert got.device.type == "neuron"
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert executions(), f"{name} ran no device kernel"
    got = got.cpu()
    if dtype == torch.bfloat16:
        # bf16: the CPU rounds the same fp32 results; transcendental and
        # summation-order differences may move a value by one bf16 ulp.
        torch.testing.assert_close(got.float(), expected.float(), rtol=1.6e-2, atol=1e-2)
    elif tol == 0:
        assert torch.equal(got, expected), (got - expected).abs().max()
    else:
        torch.testing.assert_close(got, expected, rtol=tol * 10, atol=tol * 10)


def test_unsupported_op_is_a_clear_error():
    x = torch.randn(4, 4).to("neuron")
    with pytest.raises(NotImplementedError, match=r"aten::nanmedian.* has no neuron kernel"):
        torch.nanmedian(x, 0)


def test_cpu_fallback_is_opt_in_warned_and_profiled():
    import torch_nsim
    x = torch.randn(4, 4)
    torch_nsim.set_cpu_fallback(True)
    with pytest.warns(UserWarning, match="aten::nanmedian.* running it on the CPU"):
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            y = torch.nanmedian(x.to("neuron"), 0).values
    assert y.device.type == "neuron"
    assert torch.equal(y.cpu(), torch.nanmedian(x, 0).values)
    assert any(e.key.startswith("neuron::cpu_fallback aten::nanmedian") for e in prof.key_averages())


def test_unsupported_dtype_is_a_clear_error():
    x = torch.tensor([0, 1, 2, 3], dtype=torch.int64).to("neuron")
    with pytest.raises(NotImplementedError, match=r"aten::mul.*Long"):
        x * x  # integer products are not on the device (add/sub are: test_integer_add_*)
    with pytest.raises(NotImplementedError, match=r"aten::to.dtype.*not Double"):
        torch.ones(2).to("neuron").double()  # no fp64 on Trainium


def test_device_mismatch_is_a_clear_error():
    with pytest.raises(RuntimeError, match="device"):
        torch.randn(4, 4).to("neuron") + torch.randn(4, 4)


EMPTY_ROWS, EMPTY_COLS = torch.randn(0, 4), torch.randn(3, 0)


@pytest.mark.parametrize("name,fn", [
    ("sum over no rows", lambda t: t.sum(0)), ("sum over no columns", lambda t: t.sum(1)),
    ("mean over no rows", lambda t: t.mean(0)), ("mean over no columns", lambda t: t.mean(1)),
    ("mean of nothing", lambda t: t.mean()), ("var over no rows", lambda t: t.var(0)),
    ("var of nothing", lambda t: t.var()), ("sum of nothing", lambda t: t.sum()),
])
@pytest.mark.parametrize("x", [EMPTY_ROWS, EMPTY_COLS], ids=["0x4", "3x0"])
def test_reductions_over_no_elements_match_cpu(name, fn, x):
    """PyTorch's values for empty reductions: 0 for a sum, NaN (0/0) for a
    mean or variance; the device launches no kernel but must say the same."""
    torch.testing.assert_close(fn(x.to("neuron")).cpu(), fn(x), equal_nan=True)


def test_index_select_on_a_0dim_tensor():
    s = torch.tensor(5.0)
    torch.testing.assert_close(torch.index_select(s.to("neuron"), 0, torch.tensor([0]).to("neuron")).cpu(), s)
    with pytest.raises(RuntimeError, match="only 1 value"):
        torch.index_select(s.to("neuron"), 0, torch.tensor([0, 0]).to("neuron"))
    with pytest.raises(RuntimeError, match="out of range for a 0-dim tensor"):
        torch.index_select(s.to("neuron"), 0, torch.tensor([1]).to("neuron"))


SPECIAL = torch.tensor([[float("nan"), float("inf"), -float("inf"), 0.0, -0.5, 2.0],
                        [1e-3, -1e-3, 30.0, -30.0, 5.0, float("nan")]])


@pytest.mark.parametrize("name,fn", [
    ("clamp", lambda t: t.clamp(-1.0, 1.0)),
    # maximum/minimum/amax propagate NaN from either operand (the VectorE
    # max/min ALU, sim/kernel/alu_act_tables.h): NaN second operands too.
    ("clamp_min_tensor", lambda t: torch.clamp_min(t, t.flip(0))),
    ("clamp_max_tensor", lambda t: torch.clamp_max(t, t.flip(0))),
    ("maximum_nan_second", lambda t: torch.maximum(t.flip(0), t)),
    ("minimum_nan_second", lambda t: torch.minimum(t.flip(0), t)),
    ("amax_rows", lambda t: t.amax(1)),
    ("amin_rows", lambda t: t.amin(1)),
    ("hardtanh", F.hardtanh),
    ("leaky_relu", lambda t: F.leaky_relu(t, 0.1)),
    ("elu", F.elu),
    ("selu", F.selu),
    ("tril", lambda t: torch.tril(t, 1)),
    ("triu", lambda t: torch.triu(t, -1)),
    ("flip", lambda t: t.flip(0, 1)),
    ("roll", lambda t: t.roll((1, -2), (0, 1))),
    ("frac", torch.frac),
    ("cosh", torch.cosh),
    ("hardswish", F.hardswish),
    ("vector_norm_inf", lambda t: torch.linalg.vector_norm(t, float("inf"), dim=1)),
])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_nan_and_infinities_match_cpu(name, fn, dtype):
    """The ops torch_nsim composes of device kernels keep NaN, +-inf and the
    zeros outside a triangle where the CPU has them (a mask multiply would
    turn 0 * inf into NaN)."""
    x = SPECIAL.to(dtype)
    torch.testing.assert_close(fn(x.to("neuron")).cpu(), fn(x), equal_nan=True, rtol=1e-4, atol=1e-4)


# Values where rounding, truncation and truth differ: halves, negatives,
# NaN, infinities, tiny and bf16-inexact numbers.
CAST_INPUT = torch.tensor([[1.9, -1.9, -1.5, 2.5, 0.0, -0.0, 1e-30, 0.1],
                           [float("nan"), float("inf"), -3.7e5, 16777217.0, 0.5, -0.5, 7.0, -7.25]])


INTEGERS = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]
# Beyond int32 and int16, where float -> int wraps or gives INT_MIN on the CPU.
WIDE_FLOATS = torch.tensor([300.2, -300.5, 70000.0, -129.0, 3e9, -1e10, 2.0 ** 40 + 2.0 ** 20, -(2.0 ** 62),
                            1e19, 2147483520.0, -2147483648.0, 65535.0])


@pytest.mark.parametrize("src", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("dst", INTEGERS + [torch.bool, torch.float32, torch.bfloat16])
def test_device_casts_match_cpu_exactly(src, dst):
    """to(dtype) on the device is ATen's conversion, value for value as the
    CPU (x86-64): float -> int truncates toward zero and wraps (NaN, inf and
    values beyond the intermediate int32/int64 give its minimum), -> bool is
    != 0 (NaN is true); each is a device kernel."""
    x = torch.cat([CAST_INPUT.reshape(-1), WIDE_FLOATS]).to(src)
    mark()
    got = x.to("neuron").to(dst).cpu()
    assert any(name.startswith("aten_copy") for name, _, _ in executions()) or dst == src
    assert torch.equal(got, x.to(dst)) or (dst.is_floating_point and torch.equal(got.isnan(), x.to(dst).isnan())
                                           and torch.equal(got.nan_to_num(0), x.to(dst).nan_to_num(0)))
    if dst != torch.int64:  # int64 -> float is refused (test_int64_to_float_is_refused_by_name)
        back = x.to(dst).to("neuron").to(src).cpu()
        torch.testing.assert_close(back, x.to(dst).to(src), equal_nan=True, rtol=0, atol=0)


INTEGER_VALUES = {
    torch.int64: [0, -1, 300, -129, 70000, 2 ** 31 - 1, -(2 ** 31), 2 ** 40 + 7, -(2 ** 40) - 9, 2 ** 63 - 1, -(2 ** 63)],
    torch.int32: [0, -1, 300, -129, 70000, 2 ** 31 - 1, -(2 ** 31), 2 ** 24 + 1, -(2 ** 24) - 3],
    torch.int16: [0, -1, 300, -129, 32767, -32768],
    torch.int8: [0, -1, 127, -128, 5],
    torch.uint8: [0, 255, 128, 127, 1],
}


@pytest.mark.parametrize("src", INTEGERS)
@pytest.mark.parametrize("dst", INTEGERS + [torch.bool, torch.float32, torch.bfloat16])
def test_integer_casts_match_cpu_exactly(src, dst):
    """Between integers the device keeps every bit the CPU keeps: narrowing
    moves the low bytes (two's-complement wrap, exact for int32 and int64
    values the engines' fp32 could not hold), widening adds the sign word;
    strided and transposed views too."""
    if src == torch.int64 and dst.is_floating_point:
        pytest.skip("refused: test_int64_to_float_is_refused_by_name")
    x = torch.tensor(INTEGER_VALUES[src], dtype=src)
    assert torch.equal(x.to("neuron").to(dst).cpu(), x.to(dst))
    grid = x.repeat(4).reshape(4, -1)
    d = grid.to("neuron")
    assert torch.equal(d.t().to(dst).cpu(), grid.t().to(dst))
    assert torch.equal(d[:, ::2].to(dst).cpu(), grid[:, ::2].to(dst))


def test_int64_to_float_is_refused_by_name():
    """The engines have no int64 arithmetic: converting int64 values to a
    float would be wrong beyond 2^24 / int32, so it is a clear error naming
    the op and dtypes; .int() first converts exactly when the values fit."""
    x = torch.tensor([1, 2 ** 40], dtype=torch.int64).to("neuron")
    with pytest.raises(NotImplementedError, match=r"to\.dtype.*int64 to torch\.float32"):
        x.float()
    assert torch.equal(x[:1].int().float().cpu(), torch.tensor([1.0]))


@pytest.mark.parametrize("dtype", INTEGERS)
def test_integer_fill_matches_cpu(dtype):
    """fill_ of every integer dtype: values as the CPU (int64 beyond int32
    kept, uint8's -1 is 255, a float truncated) and the CPU's overflow error."""
    for value in [2 ** 40, -(2 ** 40) - 1, 2 ** 20, -255, -1, 7, 2.9, -2.9, 300.5, True]:
        try:
            want = torch.empty(3, dtype=dtype).fill_(value)
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match=str(e)):
                torch.empty(3, dtype=dtype, device="neuron").fill_(value)
            continue
        assert torch.equal(torch.empty(3, dtype=dtype, device="neuron").fill_(value).cpu(), want), value


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_comparisons_match_cpu_with_nan_inf_and_numbers(name, dtype):
    """Bool results equal to the CPU's; a number is compared in the tensor's
    dtype (0.1 rounds to bf16 first, as ATen casts it), eagerly and compiled."""
    op = getattr(torch, name)
    x = CAST_INPUT.to(dtype)
    y = x.flip(1)
    assert torch.equal(op(x.to("neuron"), y.to("neuron")).cpu(), op(x, y))
    for number in (0.1, -7.25, 0):
        assert torch.equal(op(x.to("neuron"), number).cpu(), op(x, number)), number
    compiled = torch.compile(lambda t: op(t, 0.1), backend="neuron")
    assert torch.equal(compiled(x.to("neuron")).cpu(), op(x, 0.1))


def test_logical_ops_and_bool_tensors_match_cpu():
    x = CAST_INPUT
    d = x.to("neuron")
    m = x > 0
    for got, want in [(torch.logical_and(d, d.flip(1)), torch.logical_and(x, x.flip(1))),
                      (torch.logical_or(d, torch.tensor(0.0).to("neuron")), torch.logical_or(x, torch.tensor(0.0))),
                      (torch.logical_xor(m.to("neuron"), d), torch.logical_xor(m, x)),
                      (torch.logical_not(d), torch.logical_not(x)),
                      (torch.isnan(d), torch.isnan(x)),
                      (torch.isfinite(d), torch.isfinite(x)),
                      (m.to("neuron") + m.flip(0).to("neuron"), m + m.flip(0)),
                      (m.to("neuron") * m.flip(0).to("neuron"), m * m.flip(0)),
                      (m.to("neuron").float(), m.float())]:
        assert got.dtype == want.dtype and torch.equal(got.cpu(), want)


def test_integral_ordering_stays_a_clear_error():
    # The ALU compares in fp32, inexact for int32 beyond 2^24: refused, named.
    x = torch.tensor([16777217, 16777216], dtype=torch.int32)
    with pytest.raises(NotImplementedError, match="aten::lt"):
        torch.lt(x.to("neuron"), x.flip(0).to("neuron"))


@pytest.mark.parametrize("dtype", INTEGERS)
@pytest.mark.parametrize("op", [torch.eq, torch.ne])
def test_integer_eq_ne_see_every_bit(dtype, op):
    """eq / ne of integers compare limbs: 2^24 + 1 and 2^24 (one fp32 value)
    differ, int64 values differing only in the high word differ; with numbers,
    mixed widths and bool as the CPU."""
    x = torch.tensor(INTEGER_VALUES[dtype], dtype=dtype)
    y = x.flip(0)
    d = x.to("neuron")
    assert torch.equal(op(d, y.to("neuron")).cpu(), op(x, y))
    assert torch.equal(op(d, d).cpu(), op(x, x))
    for other in (-1, 255, 2 ** 40 + 7, x.to(torch.int32)[:1], (x > 0)):
        o = other.to("neuron") if isinstance(other, torch.Tensor) else other
        assert torch.equal(op(d, o).cpu(), op(x, other)), other


INTEGER_ADDS = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "add number": lambda x, y: x + 1,
    "sub number": lambda x, y: x - 3, "add int64 number": lambda x, y: x + 2 ** 40, "rsub": lambda x, y: 5 - x,
    "alpha -1": lambda x, y: torch.add(x, y, alpha=-1), "in place": lambda x, y: x.clone().add_(1),
    "broadcast": lambda x, y: x.reshape(-1, 1) + y[:1], "with int32": lambda x, y: x + y.to(torch.int32),
    "with int8": lambda x, y: x + y.to(torch.int8), "transposed": lambda x, y: x.reshape(-1, 1).t() + 1,
}


@pytest.mark.parametrize("dtype", INTEGERS)
@pytest.mark.parametrize("name", sorted(INTEGER_ADDS))
def test_integer_add_is_exact_and_wraps_as_cpu(dtype, name):
    """add/sub of integers on the device: limb-by-limb carries keep every bit
    (int32 beyond 2^24, int64 beyond int32) and wrap at the type's ends as the
    CPU does; each is a device kernel."""
    fn = INTEGER_ADDS[name]
    x = torch.tensor(INTEGER_VALUES[dtype], dtype=dtype)
    y = x.flip(0)
    want = fn(x, y)
    mark()
    got = fn(x.to("neuron"), y.to("neuron")).cpu()
    assert got.dtype == want.dtype and torch.equal(got, want)
    assert any(k.startswith("aten_add") or k.startswith("aten_sub") or k.startswith("aten_rsub")
               for k, _, _ in executions())


def test_integer_add_with_other_alpha_is_refused_by_name():
    x = torch.tensor([1, 2], dtype=torch.int64).to("neuron")
    with pytest.raises(NotImplementedError, match=r"aten::add\.Tensor.*alpha must be 1 or -1"):
        torch.add(x, x, alpha=2)


def test_batch_norm_counts_its_batches_on_the_device():
    """nn.BatchNorm2d with its defaults: the int64 num_batches_tracked is
    incremented on the device, and the running statistics match the CPU's."""
    torch.manual_seed(0)
    cpu = torch.nn.BatchNorm2d(3)
    dev = torch.nn.BatchNorm2d(3).to("neuron")
    for _ in range(3):
        x = torch.randn(2, 3, 4, 4)
        torch.testing.assert_close(dev(x.to("neuron")).cpu(), cpu(x), rtol=1e-5, atol=1e-5)
    assert dev.num_batches_tracked.device.type == "neuron" and dev.num_batches_tracked.item() == 3
    torch.testing.assert_close(dev.running_var.cpu(), cpu.running_var, rtol=1e-5, atol=1e-6)


def test_mm_with_an_empty_contraction_dim_is_zeros():
    a, b = torch.randn(5, 0), torch.randn(0, 3)
    assert torch.equal(torch.mm(a.to("neuron"), b.to("neuron")).cpu(), torch.mm(a, b))


def test_unfold_is_a_view_with_cpu_values():
    x = torch.randn(4, 10)
    d = x.to("neuron")
    u = d.unfold(1, 3, 2)
    assert u.shape == x.unfold(1, 3, 2).shape and u.stride() == x.unfold(1, 3, 2).stride()
    assert torch.equal((u * 1.0).cpu(), x.unfold(1, 3, 2))
