"""sort / argsort / msort / topk and nll_loss / cross_entropy on the device
against PyTorch's CPU kernels, exactly: stable order with ties, NaN sorted
as the largest value, signed zeros, infinities, int64 indices; nll_loss with
weights, ignore_index and every reduction, forward and backward. Each runs as
device kernels (timed), and bad input is refused naming the op."""
import pytest
import torch
import torch.nn.functional as F

from torch_testing import executions, mark

NAN, INF = float("nan"), float("inf")
ROWS = torch.tensor([[0.5, 2.0, 2.0, -1.0, 2.0, 0.0, 7.0],
                     [1.0, NAN, 3.0, NAN, -INF, INF, 3.0],
                     [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 1.0],
                     [3.0, 1.0, 4.0, 1.0, 5.0, -9.0, 2.0]])


def _same(got, want):
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert torch.equal(got.nan_to_num(0) if got.is_floating_point() else got,
                       want.nan_to_num(0) if want.is_floating_point() else want), (got, want)
    if got.is_floating_point():
        assert torch.equal(got.isnan(), want.isnan())
        assert torch.equal(got.signbit() & ~got.isnan(), want.signbit() & ~want.isnan()), (got, want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_stable_sort_matches_cpu(dtype, descending, dim):
    x = ROWS.to(dtype)
    mark()
    got = torch.sort(x.to("neuron"), dim=dim, descending=descending, stable=True)
    want = torch.sort(x, dim=dim, descending=descending, stable=True)
    assert executions(), "ran no device kernel"
    _same(got.values, want.values)
    _same(got.indices, want.indices)
    _same(torch.argsort(x.to("neuron"), dim=dim, descending=descending, stable=True),
          torch.argsort(x, dim=dim, descending=descending, stable=True))


def test_sort_of_a_view_0_dim_empty_and_out():
    x = torch.randn(3, 4, 5)
    d = x.to("neuron")
    _same(torch.sort(d.transpose(0, 2), 1).values, torch.sort(x.transpose(0, 2), 1).values)
    _same(torch.msort(d), torch.msort(x))
    s = torch.tensor(2.5)
    _same(torch.sort(s.to("neuron")).indices, torch.sort(s).indices)
    _same(torch.sort(torch.empty(0, 3).to("neuron"), 0).values, torch.empty(0, 3))
    v = torch.empty(0, device="neuron")
    i = torch.empty(0, dtype=torch.long, device="neuron")
    torch.sort(d, 2, out=(v, i))
    _same(v, torch.sort(x, 2).values)
    _same(i, torch.sort(x, 2).indices)


@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_cpu(largest):
    x = torch.randn(6, 40)  # fp32 normals: no ties, so the CPU's order is the only one
    for k in (0, 1, 5, 40):
        got = torch.topk(x.to("neuron"), k, dim=1, largest=largest)
        want = torch.topk(x, k, dim=1, largest=largest)
        _same(got.values, want.values)
        _same(got.indices, want.indices)


def test_long_rows_and_integers_are_refused_by_name():
    with pytest.raises(NotImplementedError, match=r"aten::sort on neuron: rows of at most 16384"):
        torch.sort(torch.zeros(16385, device="neuron"))
    with pytest.raises(NotImplementedError, match=r"aten::topk on neuron: floating dtypes only"):
        torch.topk(torch.arange(5).to("neuron"), 2)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_forward_and_backward_match_cpu(dtype, reduction, weighted):
    torch.manual_seed(0)
    x = torch.randn(6, 5).to(dtype)
    x[2, 1] = INF  # a row's non-target entries never reach its loss
    t = torch.tensor([1, 3, -100, 4, 0, 3])
    w = torch.rand(5).to(dtype) if weighted else None
    xc = x.clone().requires_grad_()
    xd = x.to("neuron").requires_grad_()
    mark()
    got = F.nll_loss(xd, t.to("neuron"), weight=None if w is None else w.to("neuron"), reduction=reduction)
    assert executions(), "ran no device kernel"
    want = F.nll_loss(xc, t, weight=w, reduction=reduction)
    g = torch.linspace(-1, 1, want.numel()).reshape(want.shape).to(dtype)
    got.backward(g.to("neuron"))
    want.backward(g)
    if reduction == "none":
        _same(got.detach(), want.detach())
        _same(xd.grad, xc.grad)
    elif dtype == torch.float32:
        torch.testing.assert_close(got.detach().cpu(), want.detach(), rtol=1e-6, atol=0)
        torch.testing.assert_close(xd.grad.cpu(), xc.grad, rtol=1e-6, atol=0)
    else:
        # The CPU sums bf16 losses (and weights) in bf16, rounding every
        # step of its cascade; the device sums in fp32 and rounds once, so it
        # must be at least as close to the float64 loss as the CPU.
        exact = F.nll_loss(x.double(), t, weight=None if w is None else w.double(), reduction=reduction)
        assert (got.detach().cpu().double() - exact).abs() <= (want.detach().double() - exact).abs() + 2 ** -9 * exact.abs()
        # the gradient divides by that total weight: within two bf16 ulps
        assert xd.grad.dtype == xc.grad.dtype
        torch.testing.assert_close(xd.grad.cpu().float(), xc.grad.float(), rtol=2 ** -6, atol=0)


def test_cross_entropy_and_2d_nll_loss_run_on_the_device():
    torch.manual_seed(1)
    x = torch.randn(2, 3, 4, 5, requires_grad=True)
    t = torch.randint(0, 3, (2, 4, 5))
    xd = x.detach().to("neuron").requires_grad_()
    got = F.cross_entropy(xd, t.to("neuron"), ignore_index=2)
    want = F.cross_entropy(x, t, ignore_index=2)
    got.backward()
    want.backward()
    torch.testing.assert_close(got.cpu(), want, rtol=1e-6, atol=0)
    torch.testing.assert_close(xd.grad.cpu(), x.grad, rtol=1e-6, atol=1e-9)


def test_nll_loss_refuses_out_of_range_targets_by_name():
    x = torch.randn(3, 4).to("neuron")
    with pytest.raises(RuntimeError, match=r"aten::nll_loss_forward: Target is out of bounds"):
        F.nll_loss(x, torch.tensor([0, 4, 1]).to("neuron"))
