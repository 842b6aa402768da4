"""Random numbers on device "neuron" (torch_nsim/csrc/random_ops.cc, backend/neuron/kernels/random_kernel.h):
the device's uniforms equal an independent Speck32/64 reference bit for bit, the distributions'
statistics over 1e5 samples, reproducibility from the device's (seed, offset) whatever non-random ops
run in between, state save and restore, dropout's mask and gradient, and that each draw is a timed
device kernel."""
import math

import pytest
import torch
import torch.nn.functional as F

from torch_testing import executions, mark

N = 100_000
MASK64 = (1 << 64) - 1


# --- an independent reference of the device's generator (Beaulieu et al. 2013, Speck32/64)

def _ror(v, r):
    return ((v >> r) | (v << (16 - r))) & 0xFFFF


def _rol(v, r):
    return ((v << r) | (v >> (16 - r))) & 0xFFFF


def _round_keys(key):
    k, l = [key & 0xFFFF], [(key >> 16) & 0xFFFF, (key >> 32) & 0xFFFF, (key >> 48) & 0xFFFF]
    for i in range(21):
        l.append(((k[i] + _ror(l[i], 7)) & 0xFFFF) ^ i)
        k.append(_rol(k[i], 2) ^ l[i + 3])
    return k


def _encrypt(rk, x, y):
    for k in rk:
        x = ((_ror(x, 7) + y) & 0xFFFF) ^ k
        y = _rol(y, 2) ^ x
    return x, y


def _splitmix(z):
    z = (z + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def _reference_uniforms(seed, offset, n):
    rk = _round_keys(_splitmix((_splitmix(seed) + offset) & MASK64))
    out = []
    for e in range(n):
        x, y = _encrypt(rk, e >> 16, e & 0xFFFF)
        out.append(((x << 8) | (y >> 8)) / 2 ** 24)
    return torch.tensor(out, dtype=torch.float32)


def test_speck_reference_matches_the_papers_test_vector():
    assert _encrypt(_round_keys(0x1918111009080100), 0x6574, 0x694C) == (0xA868, 0x42F2)


def test_device_uniforms_equal_the_reference_bit_for_bit():
    torch.neuron.manual_seed(2024)
    torch.neuron.set_rng_state(torch.tensor([2024, 5], dtype=torch.int64).view(torch.uint8))
    got = torch.empty(3000, device="neuron").uniform_().cpu()
    assert torch.equal(got, _reference_uniforms(2024, 5, 3000))
    assert torch.neuron.get_rng_state().view(torch.int64).tolist() == [2024, 6]  # one kernel, one offset step


# --- statistics over 1e5 samples (bounds: several standard errors)

def _draw(fill):
    torch.neuron.manual_seed(11)
    return fill(torch.empty(N, device="neuron")).cpu().double()


def test_uniform_statistics():
    x = _draw(lambda t: t.uniform_(-2, 3))
    assert x.min() >= -2 and x.max() < 3
    assert abs(x.mean() - 0.5) < 0.03 and abs(x.var() - 25 / 12) < 0.05
    counts = torch.histc(x, bins=10, min=-2, max=3)  # every tenth of the range about N/10
    assert (counts - N / 10).abs().max() < 5 * math.sqrt(N / 10)


def test_normal_statistics():
    x = _draw(lambda t: t.normal_(1.5, 2.0))
    z = (x - 1.5) / 2
    assert abs(z.mean()) < 0.015 and abs(z.var() - 1) < 0.02
    assert abs((z.abs() < 1).double().mean() - 0.6827) < 0.006  # the normal's mass within one sigma
    assert abs((z ** 3).mean()) < 0.05  # symmetric


def test_exponential_log_normal_and_integer_ranges():
    e = _draw(lambda t: t.exponential_(4.0))
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.005 and abs(e.var() - 1 / 16) < 0.003
    ln = _draw(lambda t: t.log_normal_(0.0, 0.5))
    assert ln.min() > 0 and abs(ln.log().mean()) < 0.01 and abs(ln.log().std() - 0.5) < 0.01
    r = _draw(lambda t: t.random_(-3, 4))
    assert set(r.unique().tolist()) == set(range(-3, 4))
    counts = torch.bincount((r + 3).long())
    assert (counts - N / 7).abs().max() < 5 * math.sqrt(N / 7)
    i64 = torch.randint(0, 1000, (N,), device="neuron").cpu()  # int64 on the device
    assert i64.dtype == torch.int64 and i64.min() >= 0 and i64.max() < 1000


def test_bernoulli_distribution_shape():
    """Each element of bernoulli(p) is 1 with probability p: the frequency per p within 5 sigma."""
    torch.neuron.manual_seed(3)
    ps = torch.tensor([0.0, 0.05, 0.3, 0.5, 0.9, 1.0])
    p = ps.repeat(20000, 1)
    x = torch.bernoulli(p.to("neuron")).cpu()
    assert set(x.unique().tolist()) <= {0.0, 1.0}
    freq = x.mean(0)
    sigma = (ps * (1 - ps) / 20000).sqrt()
    assert ((freq - ps).abs() <= 5 * sigma + 1e-12).all(), freq
    y = torch.empty(N, device="neuron").bernoulli_(0.25).cpu()
    assert abs(y.mean() - 0.25) < 5 * math.sqrt(0.25 * 0.75 / N)


# --- reproducibility and state

def test_same_seed_same_numbers_whatever_ran_in_between():
    torch.manual_seed(42)  # seeds the CPU and, through torch.neuron.manual_seed_all, the device
    a = torch.randn(64, 33, device="neuron").cpu()
    torch.manual_seed(42)
    w = torch.ones(8, 8, device="neuron")
    for _ in range(3):
        w = (w @ w).sin()  # non-random device work does not move the random state
    b = torch.randn(64, 33, device="neuron").cpu()
    assert torch.equal(a, b)
    c = torch.randn(64, 33, device="neuron").cpu()
    assert not torch.equal(b, c)  # the next draw is a new one


def test_state_save_and_restore():
    torch.neuron.manual_seed(9)
    torch.rand(10, device="neuron")
    state = torch.neuron.get_rng_state()
    a = torch.rand(1000, device="neuron").cpu()
    torch.rand(5, device="neuron")
    torch.neuron.set_rng_state(state)
    assert torch.equal(torch.rand(1000, device="neuron").cpu(), a)
    with torch.random.fork_rng(device_type="neuron"):
        torch.rand(7, device="neuron")
    assert not torch.equal(torch.rand(1000, device="neuron").cpu(), a)  # after a, as without the fork


# --- dropout

def test_dropout_mask_values_and_gradient():
    torch.neuron.manual_seed(5)
    x = torch.randn(64, 200)
    xd = x.to("neuron").requires_grad_()
    y = F.dropout(xd, p=0.3, training=True)
    y.backward(torch.ones_like(y))
    y, g = y.detach().cpu(), xd.grad.cpu()
    kept = y != 0
    assert abs(kept.double().mean() - 0.7) < 5 * math.sqrt(0.21 / x.numel())
    torch.testing.assert_close(y[kept], x[kept] / 0.7, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(g, kept.float() / 0.7, rtol=1e-6, atol=0)
    assert torch.equal(F.dropout(x.to("neuron"), p=0.3, training=False).cpu(), x)


def test_transformer_layer_trains_with_dropout():
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.1, batch_first=True).to("neuron")
    layer.train()
    out = layer(torch.randn(2, 5, 16, device="neuron"))
    out.sum().backward()
    assert out.shape == (2, 5, 16) and torch.isfinite(out.cpu()).all()
    assert all(p.grad is not None and torch.isfinite(p.grad.cpu()).all() for p in layer.parameters())


# --- timed on the device, clear errors

def test_each_draw_is_a_timed_device_kernel():
    x = torch.empty(128 * 512 * 4, device="neuron")
    mark()
    x.uniform_()
    torch.neuron.synchronize()
    runs = executions()
    gen = [r for r in runs if "random_uniform" in r[0]]
    assert len(gen) == 1 and gen[0][1] > 0, runs


def test_unsupported_forms_name_the_op():
    with pytest.raises(NotImplementedError, match="aten::uniform_ on neuron: an explicit generator"):
        torch.empty(4, device="neuron").uniform_(generator=torch.Generator())
    with pytest.raises(NotImplementedError, match=r"aten::random_.from on neuron: ranges and bounds up to 2\^24"):
        torch.empty(4, device="neuron", dtype=torch.int64).random_(0, 2 ** 40)


def test_rrelu_slopes_are_uniform_in_range_and_eval_is_leaky():
    torch.neuron.manual_seed(8)
    x = -torch.rand(N) - 0.5
    x[:10] = torch.arange(10.0)  # positives pass through
    got = F.rrelu(x.to("neuron"), lower=0.1, upper=0.3, training=True).cpu()
    assert torch.equal(got[:10], x[:10])
    slope = (got[10:] / x[10:]).double()
    assert slope.min() >= 0.1 - 1e-6 and slope.max() <= 0.3 + 1e-6
    assert abs(slope.mean() - 0.2) < 0.002 and abs(slope.var() - 0.04 / 12) < 2e-4
    torch.testing.assert_close(F.rrelu(x.to("neuron"), 0.1, 0.3, training=False).cpu(),
                               F.rrelu(x, 0.1, 0.3, training=False))
