"""Convolution, average pooling and batch norm on device "neuron" (torch_nsim/csrc/cnn_ops.cc):
values and gradients against the CPU in fp32, each step a timed device kernel (the convolution one
TensorE matmul per group, as the Neuron compiler lowers it), and clear errors for what is not
supported."""
import pytest
import torch
import torch.nn.functional as F

from torch_testing import executions, mark


def _grads(fn, *tensors, device):
    leaves = [t.detach().clone().to(device).requires_grad_() for t in tensors]
    out = fn(*leaves)
    out.backward(torch.linspace(-1, 1, out.numel()).reshape(out.shape).to(device))
    return out.detach().cpu(), [t.grad.cpu() for t in leaves]


def _expect_same_as_cpu(fn, *tensors, rtol=1e-5, atol=1e-5):
    want, want_grads = _grads(fn, *tensors, device="cpu")
    got, got_grads = _grads(fn, *tensors, device="neuron")
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)
    for g, w in zip(got_grads, want_grads):
        torch.testing.assert_close(g, w, rtol=rtol, atol=atol)


X = torch.randn(2, 4, 9, 8)


@pytest.mark.parametrize("kwargs", [
    {"padding": 1},
    {"stride": 2, "padding": 1},
    {"stride": (2, 1), "padding": (0, 2), "dilation": (1, 2)},
    {"groups": 2, "padding": 1},
], ids=["pad1", "stride2", "mixed", "groups2"])
def test_conv2d_values_and_gradients(kwargs):
    w = torch.randn(6, 4 // kwargs.get("groups", 1), 3, 3)
    b = torch.randn(6)
    _expect_same_as_cpu(lambda x, w, b: F.conv2d(x, w, b, **kwargs), X, w, b, rtol=1e-4, atol=1e-4)


def test_conv1d_values_and_gradients():
    _expect_same_as_cpu(lambda x, w: F.conv1d(x, w, padding=2, stride=2), torch.randn(2, 3, 17),
                        torch.randn(5, 3, 4), rtol=1e-4, atol=1e-4)


def test_conv2d_is_one_matmul_on_tensor_engine():
    mark()
    F.conv2d(X.to("neuron"), torch.randn(6, 4, 3, 3).to("neuron"), padding=1)
    torch.neuron.synchronize()
    kernels = [name for name, _, _ in executions()]
    assert sum("mm" in k for k in kernels) == 1, kernels


@pytest.mark.parametrize("kwargs", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1}],
                         ids=["k2", "k3s2p1"])
def test_avg_pool2d_values_and_gradients(kwargs):
    _expect_same_as_cpu(lambda x: F.avg_pool2d(x, **kwargs), X)


@pytest.mark.parametrize("size", [(1, 1), (3, 5), (9, 8)], ids=["global", "overlapping", "identity"])
def test_adaptive_avg_pool2d_values_and_gradients(size):
    # (3, 5) over 9 x 8: windows of rows 0-2, 3-5, 6-8 and overlapping column windows (e.g. 1-3 and 3-4).
    _expect_same_as_cpu(lambda x: F.adaptive_avg_pool2d(x, size), X)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_batch_norm_values_gradients_and_running_statistics(training):
    rm, rv = torch.randn(4), torch.rand(4) + 0.5
    stats = {}

    def bn(x, w, b):
        device = x.device.type
        stats[device] = (rm.clone().to(x.device), rv.clone().to(x.device))
        return F.batch_norm(x, *stats[device], w, b, training=training, momentum=0.3, eps=1e-3)
    _expect_same_as_cpu(bn, X, torch.randn(4), torch.randn(4), rtol=1e-4, atol=1e-4)
    for got, want in zip(stats["neuron"], stats["cpu"]):
        torch.testing.assert_close(got.cpu(), want)


@pytest.mark.parametrize("call,message", [
    (lambda x: F.conv_transpose2d(x.requires_grad_(), torch.randn(4, 2, 3, 3).to(x.device)).sum().backward(),
     "the backward of a transposed convolution"),
    (lambda x: F.conv3d(x.unsqueeze(2), torch.randn(2, 4, 1, 3, 3).to(x.device)), "1-d and 2-d convolutions"),
])
def test_unsupported_forms_name_the_op(call, message):
    with pytest.raises(NotImplementedError, match=message):
        call(X.to("neuron"))


@pytest.mark.parametrize("args", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                  dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True),
                                  dict(kernel_size=(2, 3), stride=(1, 2))])
def test_max_pool2d_values_indices_and_gradient_equal_the_cpu(args):
    """NaN propagates, the first of equal maxima wins (a plateau of 5s), -inf windows keep their first
    in-bounds index; the gradient goes to the index each output names, overlaps added."""
    x = torch.randn(2, 3, 9, 10, generator=torch.Generator().manual_seed(1))
    x[0, 0, 0, 0] = float("nan")
    x[1, 1, 2:5, 2:5] = 5.0
    x[1, 2, :4, :4] = float("-inf")
    want, want_idx = F.max_pool2d(x, return_indices=True, **args)
    xc = x.clone().requires_grad_()
    F.max_pool2d(xc, **args).backward(torch.linspace(-1, 1, want.numel()).reshape(want.shape))
    xd = x.to("neuron").requires_grad_()
    mark()
    got, got_idx = F.max_pool2d(xd, return_indices=True, **args)
    got.backward(torch.linspace(-1, 1, want.numel()).reshape(want.shape).to("neuron"))
    torch.neuron.synchronize()
    assert executions()  # device kernels, timed
    assert torch.equal(got.detach().cpu().nan_to_num(7.0), want.nan_to_num(7.0))
    assert got_idx.dtype == torch.int64 and torch.equal(got_idx.cpu(), want_idx)
    torch.testing.assert_close(xd.grad.cpu(), xc.grad, rtol=1e-6, atol=1e-6)


def test_max_pool_errors_name_the_op():
    with pytest.raises(NotImplementedError, match="aten::max_pool2d_with_indices on neuron: floating dtypes"):
        F.max_pool2d(torch.ones(1, 1, 4, 4, dtype=torch.int32, device="neuron"), 2)


@pytest.mark.parametrize("args", [dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                  dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                  dict(kernel_size=(2, 3), stride=2, padding=1, ceil_mode=True, count_include_pad=False),
                                  dict(kernel_size=2, divisor_override=3)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_avg_pool2d_divisors_and_gradient_equal_the_cpu(args, dtype):
    """Windows clipped by ceil_mode, padding left out of the count, an explicit divisor: summed in fp32
    and rounded once, as the CPU kernel."""
    x = torch.randn(2, 3, 9, 10, generator=torch.Generator().manual_seed(2)).to(dtype)
    want = F.avg_pool2d(x, **args)
    xc = x.clone().requires_grad_()
    F.avg_pool2d(xc, **args).backward(torch.linspace(-1, 1, want.numel()).reshape(want.shape).to(dtype))
    xd = x.to("neuron").requires_grad_()
    got = F.avg_pool2d(xd, **args)
    got.backward(torch.linspace(-1, 1, want.numel()).reshape(want.shape).to(dtype).to("neuron"))
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == torch.float32 else dict(rtol=1e-2, atol=1e-2)
    torch.testing.assert_close(got.detach().cpu(), want, **tol)
    torch.testing.assert_close(xd.grad.cpu(), xc.grad, **tol)


def test_unfold_and_batch_norm_forms_equal_the_cpu():
    x = torch.randn(2, 3, 7, 6, generator=torch.Generator().manual_seed(3))
    args = dict(kernel_size=(3, 2), dilation=(1, 2), padding=1, stride=(2, 1))
    assert torch.equal(F.unfold(x.to("neuron"), **args).cpu(), F.unfold(x, **args))  # im2col: copies
    w, b = torch.randn(3), torch.randn(3)
    stats = {d: (torch.zeros(3, device=d), torch.ones(3, device=d)) for d in ("cpu", "neuron")}
    outs = {d: torch.ops.aten._batch_norm_with_update(x.to(d), w.to(d), b.to(d), *stats[d], 0.1, 1e-5)
            for d in ("cpu", "neuron")}
    for got, want in zip(outs["neuron"][:3], outs["cpu"][:3]):
        torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=1e-5)
    for got, want in zip(stats["neuron"], stats["cpu"]):  # running statistics updated in place
        torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("args", [dict(), dict(stride=2, padding=1, output_padding=1),
                                  dict(stride=(2, 1), dilation=2, padding=(1, 0), groups=2)])
def test_conv_transpose_equals_the_cpu(args):
    """Each input element spread over its window of the output by one matmul per group, windows added."""
    gen = torch.Generator().manual_seed(8)
    x, w, b = torch.randn(2, 4, 5, 6, generator=gen), torch.randn(4, 3, 3, 2, generator=gen), torch.randn(6, generator=gen)
    b = b[:3 * args.get("groups", 1)]
    mark()
    got = F.conv_transpose2d(x.to("neuron"), w.to("neuron"), b.to("neuron"), **args).cpu()
    assert any("matmul" in e[0] or "mm" in e[0] for e in executions()), executions()
    torch.testing.assert_close(got, F.conv_transpose2d(x, w, b, **args), rtol=1e-5, atol=1e-5)
    x1, w1 = torch.randn(2, 4, 7, generator=gen), torch.randn(4, 2, 3, generator=gen)
    torch.testing.assert_close(F.conv_transpose1d(x1.to("neuron"), w1.to("neuron"), stride=3).cpu(),
                               F.conv_transpose1d(x1, w1, stride=3), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("size", [(3, 4), (5, 7), (1, 1), (7, 3)])
def test_adaptive_max_pool2d_values_indices_and_gradient_equal_the_cpu(size):
    """Overlapping and growing windows: NaN propagates, the first of equal maxima wins, gradients to the index."""
    x = torch.randn(2, 3, 5, 7, generator=torch.Generator().manual_seed(6))
    x[0, 0, 0, 0] = float("nan")
    x[1, 1, 1:3, 1:4] = 5.0
    want, want_idx = F.adaptive_max_pool2d(x, size, return_indices=True)
    up = torch.linspace(-1, 1, want.numel()).reshape(want.shape)
    xc = x.clone().requires_grad_()
    F.adaptive_max_pool2d(xc, size).backward(up)
    xd = x.to("neuron").requires_grad_()
    got, got_idx = F.adaptive_max_pool2d(xd, size, return_indices=True)
    got.backward(up.to("neuron"))
    assert torch.equal(got.detach().cpu().nan_to_num(9.0), want.nan_to_num(9.0))
    assert torch.equal(got_idx.cpu(), want_idx)
    torch.testing.assert_close(xd.grad.cpu(), xc.grad, rtol=1e-6, atol=1e-6)
