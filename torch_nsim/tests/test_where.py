"""where.self, masked_fill, threshold and ReLU's backward on the device,
against PyTorch's CPU kernels: exact (a select rounds nothing but the chosen
value), with NaN and infinities in the operand not chosen (an arithmetic
blend c * a + (1 - c) * b would give NaN there), broadcasting of all three
operands, numbers, Bool results, eager and torch.compile(backend="neuron")."""
import pytest
import torch
import torch.nn.functional as F

from torch_testing import executions, mark

SPECIAL = torch.tensor([[float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 2.0, 0.1, -7.25],
                        [1e-3, -1e-3, 30.0, -30.0, 5.0, float("nan"), float("inf"), 1e30]])
COND = torch.tensor([[True, False, True, False, True, False, True, False],
                     [False, False, True, True, False, True, False, True]])


def _same(got, want):
    """Equal dtype, shape and values, NaN where the CPU has NaN, -0.0 where it has -0.0."""
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.is_floating_point():
        assert torch.equal(got.isnan(), want.isnan())
        assert torch.equal(got.nan_to_num(0).signbit(), want.nan_to_num(0).signbit())
        assert torch.equal(got.nan_to_num(0), want.nan_to_num(0)), (got, want)
    else:
        assert torch.equal(got, want)


def _d(*ts):
    return [t.to("neuron") if isinstance(t, torch.Tensor) else t for t in ts]


CASES = {
    "tensors": lambda c, x, y: torch.where(c, x, y),
    "nan_inf_not_chosen": lambda c, x, y: torch.where(c, x, y.flip(1)),
    "cond_column": lambda c, x, y: torch.where(c[:, :1], x, y),
    "value_row": lambda c, x, y: torch.where(c, x[0], y),
    "value_column_and_row": lambda c, x, y: torch.where(c, x[:, 3:4], y[1]),
    "cond_row_values_columns": lambda c, x, y: torch.where(c[0], x[:, 5:6], y[:, 1:2]),
    "scalar_other": lambda c, x, y: torch.where(c, x, 0.1),
    "scalar_self": lambda c, x, y: torch.where(c, -float("inf"), y),
    "zero_dim_tensor": lambda c, x, y: torch.where(c, x, y[0, 1]),
    "masked_fill": lambda c, x, y: x.masked_fill(c, -float("inf")),
    "masked_fill_tensor": lambda c, x, y: x.masked_fill(c, y[1, 5]),
    "masked_fill_broadcast": lambda c, x, y: x.masked_fill(c[1], 0.1),
    "masked_fill_": lambda c, x, y: x.clone().masked_fill_(c, 3.0),
    "threshold": lambda c, x, y: F.threshold(x, 0.1, -2.0),
    "threshold_backward": lambda c, x, y: torch.ops.aten.threshold_backward(y, x, 0.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_select_matches_cpu_exactly(name, dtype):
    fn = CASES[name]
    x, y = SPECIAL.to(dtype), SPECIAL.flip(0).to(dtype)
    mark()
    _same(fn(*_d(COND, x, y)), fn(COND, x, y))
    assert executions(), f"{name} ran no device kernel"
    torch._dynamo.reset()  # compile this case's function afresh (dynamo caches by code object)
    compiled = torch.compile(lambda c, a, b: fn(c, a, b) * 1.0, backend="neuron")
    _same(compiled(*_d(COND, x, y)), fn(COND, x, y) * 1.0)


def test_mixed_dtypes_promote_as_cpu():
    x, y = SPECIAL.to(torch.bfloat16), SPECIAL.flip(0)
    _same(torch.where(*_d(COND, x, y)), torch.where(COND, x, y))  # float32 result
    _same(torch.where(*_d(COND, x, 0.1)), torch.where(COND, x, 0.1))  # 0.1 rounded to bfloat16


def test_bool_values():
    a, b = COND, COND.flip(1)
    _same(torch.where(*_d(COND.flip(0), a, b)), torch.where(COND.flip(0), a, b))


def test_where_is_one_timed_kernel():
    mark()
    torch.where(*_d(COND, SPECIAL, SPECIAL.flip(0)))
    runs = executions()
    assert len(runs) == 1 and runs[0][1] > 0, runs


def test_relu_backward_is_one_kernel_and_exact():
    x = SPECIAL.nan_to_num(0.0)
    xd = x.to("neuron").requires_grad_()
    xc = x.clone().requires_grad_()
    g = torch.randn(x.shape)
    torch.relu(xc).backward(g)
    y = torch.relu(xd)
    mark()
    y.backward(g.to("neuron"))
    assert any("threshold_backward" in str(r[0]) for r in executions()), executions()
    _same(xd.grad, xc.grad)


def test_non_bool_condition_is_a_clear_error():
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        torch.where(*_d(SPECIAL, SPECIAL, SPECIAL))
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks"):
        torch.ops.aten.masked_fill(*_d(SPECIAL, SPECIAL), 1.0)


def test_compiled_where_with_a_number_is_one_fused_kernel():
    """torch.where(c, x, 0.0) and ReLU's backward pass a 0-dim constant:
    an immediate of the fused kernel, not an eager op splitting it."""
    torch._dynamo.reset()
    f = torch.compile(lambda c, x: torch.where(c, x.exp(), 0.0) * 2.0, backend="neuron")
    c, x = _d(COND, SPECIAL)
    f(c, x)
    mark()
    got = f(c, x)
    runs = executions()
    assert len(runs) == 1 and "torch_compiled_region" in runs[0][0], runs
    _same(got, torch.where(COND, SPECIAL.exp(), 0.0) * 2.0)


TINY = torch.tensor([1e-10, -1e-10, 3e-8, 1.5e-7, -6e-8, 1e-4, -0.5, -1.0, -2.0, 1e30, 3.4e38])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_log1p_log_sigmoid_logaddexp_norm0_match_cpu(dtype):
    """log1p keeps tiny x (log(1 + x) would give 0), inf and -1; logaddexp
    of equal infinities is that infinity; the 0-norm counts NaN as non-zero."""
    x = torch.cat([SPECIAL.flatten(), TINY]).to(dtype)
    close = dict(rtol=2e-6 if dtype == torch.float32 else 8e-3, atol=0, equal_nan=True)
    torch.testing.assert_close(torch.log1p(x.to("neuron")).cpu(), torch.log1p(x), **close)
    torch.testing.assert_close(F.logsigmoid(x.to("neuron")).cpu(), F.logsigmoid(x), **close)
    y = x.flip(0)
    torch.testing.assert_close(torch.logaddexp(*_d(x, y)).cpu(), torch.logaddexp(x, y), **close)
    inf = torch.tensor([float("inf"), -float("inf"), float("inf")], dtype=dtype)
    _same(torch.logaddexp(*_d(inf, inf)), torch.logaddexp(inf, inf))
    _same(torch.linalg.vector_norm(x.to("neuron"), 0), torch.linalg.vector_norm(x, 0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_xlogy_xlog1py_softplus_select_their_special_cases(dtype):
    """xlogy(0, y) is 0 even where log(y) is -inf or NaN, and NaN where y is
    NaN (a product 0 * log(y) would be NaN for y = 0); softplus is x above
    its threshold."""
    x = torch.tensor([0.0, 0.0, 0.0, 0.0, 2.0, -1.5, float("nan"), 3.0], dtype=dtype)
    y = torch.tensor([0.0, -1.0, float("inf"), float("nan"), 0.5, 4.0, 1.0, float("inf")], dtype=dtype)
    close = dict(rtol=2e-6 if dtype == torch.float32 else 8e-3, atol=0, equal_nan=True)
    torch.testing.assert_close(torch.xlogy(*_d(x, y)).cpu(), torch.xlogy(x, y), **close)
    torch.testing.assert_close(torch.special.xlog1py(*_d(x, y)).cpu(), torch.special.xlog1py(x, y), **close)
    torch.testing.assert_close(F.softplus(x.to("neuron"), 2.0, 3.0).cpu(), F.softplus(x, 2.0, 3.0), **close)
    torch.testing.assert_close(F.softplus(y.to("neuron")).cpu(), F.softplus(y), **close)
