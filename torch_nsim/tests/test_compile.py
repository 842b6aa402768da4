"""torch.compile(backend="neuron"): one kernel per graph, Dynamo's guards and
graph breaks, numerics, and the fallback for graphs that cannot be fused."""
import warnings

import pytest
import torch
import torch.nn.functional as F

from torch_nsim import compiler
from torch_testing import executions, mark


def rmsnorm(x, w):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w


def run(f, *args):
    mark()
    out = f(*args)
    torch.neuron.synchronize()
    return out, executions()


@pytest.fixture(autouse=True)
def _reset_dynamo():
    torch._dynamo.reset()
    compiler.set_check(True)  # every fused kernel of these tests is also checked against the CPU
    yield
    compiler.set_check(False)


def test_one_kernel_per_graph_and_numerics():
    x = torch.randn(8, 256)
    w = torch.randn(256)
    f = torch.compile(rmsnorm, backend="neuron", fullgraph=True)
    out, ex = run(f, x.to("neuron"), w.to("neuron"))
    assert len(ex) == 1 and ex[0][0].startswith("torch_compiled_region")
    torch.testing.assert_close(out.cpu(), rmsnorm(x, w), rtol=1e-5, atol=1e-5)
    _, ex = run(f, x.to("neuron"), w.to("neuron"))  # replay: guards pass, same kernel, one execution
    assert len(ex) == 1


def test_new_shape_recompiles():
    f = torch.compile(rmsnorm, backend="neuron", fullgraph=True, dynamic=False)
    run(f, torch.randn(4, 64).to("neuron"), torch.randn(64).to("neuron"))
    out, ex = run(f, torch.randn(2, 128).to("neuron"), torch.randn(128).to("neuron"))
    assert len(ex) == 1 and out.shape == (2, 128)


def test_mlp_with_softmax_layer_norm_and_linear():
    def block(x, w1, b1, w2, g, b):
        h = F.silu(F.linear(x, w1, b1))
        h = F.layer_norm(h, [h.shape[-1]], g, b)
        return torch.softmax(h @ w2, dim=-1)
    args = [torch.randn(16, 64), torch.randn(128, 64), torch.randn(128), torch.randn(128, 32), torch.randn(128),
            torch.randn(128)]
    f = torch.compile(block, backend="neuron", fullgraph=True)
    out, ex = run(f, *[a.to("neuron") for a in args])
    assert len(ex) == 1
    torch.testing.assert_close(out.cpu(), block(*args), rtol=1e-4, atol=1e-5)


@pytest.mark.filterwarnings("ignore:var\\(\\)")  # torch warns that the correction exceeds the count
def test_var_with_correction_above_the_count_matches_cpu():
    """PyTorch divides by max(0, n - correction): +inf here, never a negative
    variance. Eager on the device, torch.compile and the CPU agree."""
    def f(t):
        return torch.var(t, -1, correction=11)
    x = torch.randn(4, 8)
    expected = f(x)
    assert torch.isinf(expected).all() and (expected > 0).all()
    torch.testing.assert_close(f(x.to("neuron")).cpu(), expected)
    out, ex = run(torch.compile(f, backend="neuron", fullgraph=True), x.to("neuron"))
    assert len(ex) == 1
    torch.testing.assert_close(out.cpu(), expected)


def test_graph_break_gives_two_regions():
    def f(x):
        y = torch.exp(x)
        torch._dynamo.graph_break()
        return y * 2
    x = torch.randn(4, 16)
    out, ex = run(torch.compile(f, backend="neuron"), x.to("neuron"))
    assert len(ex) == 2
    torch.testing.assert_close(out.cpu(), torch.exp(x) * 2)


def test_unfusable_op_runs_eagerly_between_fused_kernels():
    def f(x):
        return x.sum(0) * 2  # a reduction over the outer dim: no fusion rule
    x = torch.randn(8, 16)
    with pytest.warns(UserWarning, match=r"not fused: aten::sum.dim_IntList.*only the innermost dim"):
        out, ex = run(torch.compile(f, backend="neuron"), x.to("neuron"))
    assert len(ex) == 2  # the eager sum, then the fused region of the rest
    torch.testing.assert_close(out.cpu(), x.sum(0) * 2)


@pytest.mark.parametrize("view", [
    lambda q: q.transpose(0, 1).reshape(q.shape[1], -1),          # the head merge of attention
    lambda q: q.permute(2, 0, 1).contiguous().view(q.shape[2], -1),
    lambda q: q.transpose(1, 2).reshape(-1),
])
def test_layout_changing_copy_then_reshape(view):
    q = torch.randn(8, 2, 4)
    f = torch.compile(lambda q: view(q) * 2.0 + 1.0, backend="neuron")
    out, _ = run(f, q.to("neuron"))
    torch.testing.assert_close(out.cpu(), view(q) * 2.0 + 1.0)


def test_check_mode_names_a_wrong_kernel(monkeypatch):
    x = torch.randn(4, 8)
    f = torch.compile(lambda x: x * 3.0, backend="neuron")
    run(f, x.to("neuron"))  # compiles the kernel, checks it (passes)
    real_run = compiler._check_segment

    def tamper(segment, inputs, outputs):
        real_run(segment, inputs, [o * 1.5 for o in outputs])
    monkeypatch.setattr(compiler, "_check_segment", tamper)
    with pytest.raises(RuntimeError, match=r"check: the fused kernel of aten::mul.Tensor .*differ from the CPU"):
        run(f, x.to("neuron"))


def test_transpose_of_an_input_already_read_reads_it_again():
    def f(v, w):  # the second product is a linear layer's weight gradient
        return v @ w, v.t() @ w
    v, w = torch.randn(32, 32), torch.randn(32, 48)
    out, ex = run(torch.compile(f, backend="neuron", fullgraph=True), v.to("neuron"), w.to("neuron"))
    assert len(ex) == 1
    for got, want in zip(out, f(v, w)):  # the second was v @ w again
        torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=1e-5)


def test_views_of_inputs_keep_the_layout_eager_gives_them():
    def f(x):
        a = x.t()
        m = a * 2
        s = m.sum(0)  # runs eagerly: the fused kernel of t + mul ends before it
        return a.t().view(-1) * s.sum(), m  # a.t() is contiguous only if `a` is x's view, not a dense copy
    x = torch.randn(8, 16)
    out, _ = run(torch.compile(f, backend="neuron"), x.to("neuron"))
    for got, want in zip(out, f(x)):
        torch.testing.assert_close(got.cpu(), want)


def test_an_op_on_an_integer_input_runs_eagerly_beside_the_kernel():
    def f(idx, w):
        return F.embedding(idx, w) * 2.0
    idx, w = torch.tensor([[1, 3, 0], [2, 2, 1]]), torch.randn(4, 8)
    with pytest.warns(UserWarning, match=r"not fused: aten::embedding"):
        out, _ = run(torch.compile(f, backend="neuron"), idx.to("neuron"), w.to("neuron"))
    torch.testing.assert_close(out.cpu(), f(idx, w))
