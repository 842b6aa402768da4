"""Autograd on device "neuron": gradients through the composite ops the
device runs as kernels of its own, the backward ops of activations, softmax,
layer norm and embedding, a training step with SGD and AdamW against the
CPU, and clear errors for backward kernels the device lacks."""
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


@pytest.mark.parametrize("optimizer", [
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, foreach=True),
    lambda p: torch.optim.AdamW(p, lr=0.01, foreach=False),
    lambda p: torch.optim.AdamW(p, lr=0.01, foreach=True),
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


# The backward ops autograd calls for a transformer's activations, softmaxes
# and norms: each is a decomposition (backend/compile/decompositions.cc) that
# the device runs as the core ops it is made of.
BACKWARDS = {
    "tanh": lambda t: torch.tanh(t),
    "sigmoid": lambda t: torch.sigmoid(t),
    "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
    "softmax": lambda t: F.softmax(t, dim=-1),
    "log_softmax": lambda t: F.log_softmax(t, dim=-1),
    "softmax_dim0": lambda t: F.softmax(t, dim=0),
    "layer_norm": lambda t: F.layer_norm(t, [8], torch.linspace(0.5, 1.5, 8).to(t.device),
                                         torch.linspace(-1, 1, 8).to(t.device)),
    "layer_norm_no_affine": lambda t: F.layer_norm(t, [8]),
    "layer_norm_2d_shape": lambda t: F.layer_norm(t, [4, 8]),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", BACKWARDS)
def test_backward_matches_the_cpu(name, dtype):
    fn = BACKWARDS[name]
    weights = torch.randn(4, 8, generator=torch.Generator().manual_seed(5))  # a non-uniform upstream gradient
    grads = []
    for device in ("cpu", "neuron"):
        x = X.to(dtype).to(device).detach().clone().requires_grad_()
        (fn(x).float() * weights.to(device)).sum().backward()
        grads.append(x.grad.cpu())
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == torch.float32 else dict(rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(grads[1], grads[0], **tol)


def test_layer_norm_weight_and_bias_gradients_match_the_cpu():
    results = []
    for device in ("cpu", "neuron"):
        ln = torch.nn.LayerNorm(8).to(device)
        with torch.no_grad():
            ln.weight.copy_(torch.linspace(0.5, 1.5, 8))
        (ln(X.to(device)) * torch.arange(32.0).reshape(4, 8).to(device)).sum().backward()
        results.append([ln.weight.grad.cpu(), ln.bias.grad.cpu()])
    for dev, cpu in zip(results[1], results[0]):
        torch.testing.assert_close(dev, cpu, rtol=1e-4, atol=1e-4)


def test_embedding_gradient_matches_the_cpu():
    idx = torch.tensor([[1, 3, 3], [0, 5, 1]])
    up = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(6))
    grads = []
    for device in ("cpu", "neuron"):
        emb = torch.nn.Embedding(6, 4, padding_idx=5)
        with torch.no_grad():
            emb.weight.copy_(torch.arange(24.0).reshape(6, 4))
        emb = emb.to(device)
        (emb(idx.to(device)) * up.to(device)).sum().backward()
        grads.append(emb.weight.grad.cpu())
    torch.testing.assert_close(grads[1], grads[0])


def test_a_missing_backward_kernel_is_named():
    x = X.to("neuron").requires_grad_()
    with pytest.raises(NotImplementedError, match=r"aten::hardsigmoid_backward\S* has no neuron kernel"):
        F.hardsigmoid(x).sum().backward()


def test_gelu_erf_backward_matches_cpu():
    x = X.to("neuron").requires_grad_()
    F.gelu(x).sum().backward()
    ref = X.clone().requires_grad_()
    F.gelu(ref).sum().backward()
    torch.testing.assert_close(x.grad.cpu(), ref.grad, rtol=1e-5, atol=1e-6)
