"""Autograd on device "neuron": gradients through the composite ops the
device runs as kernels of its own, a training step with SGD and AdamW
against the CPU, and clear errors for backward kernels the device lacks."""
import pytest
import torch
import torch.nn.functional as F

from torch_nsim import autograd

X = torch.randn(4, 8)
ONES = torch.ones(8, 2)


@pytest.mark.parametrize("name,fn", [
    ("reshape", lambda t: t.reshape(8, 4) * 2),
    ("to bf16 and back", lambda t: t.to(torch.bfloat16).float() * 2),
    ("contiguous of a transpose", lambda t: t.t().contiguous() * 2),
    ("narrow", lambda t: t.narrow(1, 0, 4) * 2),
    ("matmul", lambda t: t @ ONES.to(t.device)),
    ("square", torch.square),
])
def test_gradient_through_a_composite_op_the_device_runs(name, fn):
    """These ops have a neuron kernel that bypasses their decomposition;
    without the autograd kernels the gradient was None."""
    x = X.to("neuron").requires_grad_()
    fn(x).sum().backward()
    ref = X.clone().requires_grad_()
    fn(ref).sum().backward()
    assert x.grad is not None, f"{name}: no gradient reached the input"
    torch.testing.assert_close(x.grad.cpu(), ref.grad)


def test_every_composite_op_with_a_neuron_kernel_has_autograd():
    ops = autograd.composite_ops_run_by_the_device()
    assert "aten::softmax.int" in ops and "aten::reshape" in ops
    for name in ops:
        assert torch._C._dispatch_has_kernel_for_dispatch_key(name, "AutogradPrivateUse1"), name


def test_no_grad_keeps_one_profiler_row_per_op():
    x = X.to("neuron")
    with torch.no_grad(), torch.profiler.profile() as prof:
        F.softmax(x, -1)
        torch.neuron.synchronize()
    assert [e.name for e in prof.events()].count("aten::softmax") == 1


def _mlp(device):
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.SiLU(), torch.nn.Linear(16, 4))
    return model.to(device)


NO_LERP = pytest.mark.xfail(raises=NotImplementedError, strict=True,
                            reason="AdamW's moment update is aten::lerp, which has no neuron kernel yet")


@pytest.mark.parametrize("optimizer", [
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, foreach=True),
    pytest.param(lambda p: torch.optim.AdamW(p, lr=0.01, foreach=False), marks=NO_LERP),
    pytest.param(lambda p: torch.optim.AdamW(p, lr=0.01, foreach=True), marks=NO_LERP),
], ids=["sgd", "sgd_foreach", "adamw", "adamw_foreach"])
def test_two_training_steps_match_the_cpu(optimizer):
    target = torch.randn(4, 4)
    results = []
    for device in ("cpu", "neuron"):
        model = _mlp(device)
        opt = optimizer(model.parameters())
        for _ in range(2):
            opt.zero_grad()
            loss = ((model(X.to(device)) - target.to(device)) ** 2).mean()
            loss.backward()
            opt.step()
        results.append([p.detach().cpu() for p in model.parameters()])
    for cpu, dev in zip(*results):
        torch.testing.assert_close(dev, cpu, rtol=1e-4, atol=1e-5)


def test_a_missing_backward_kernel_is_named():
    x = X.to("neuron").requires_grad_()
    with pytest.raises(NotImplementedError, match=r"aten::tanh_backward\S* has no neuron kernel"):
        torch.tanh(x).sum().backward()
