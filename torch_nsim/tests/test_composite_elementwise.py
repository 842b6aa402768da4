"""torch_nsim's composite pointwise ops, losses and reductions
(csrc/elementwise_ops.cc, loss_ops.cc, activation_ops.cc, bessel_ops.cc,
modulo_ops.cc) against PyTorch's
CPU kernels on the edge values OpInfo's random samples miss: NaN, +-inf,
-0.0, rounding ties, |x| near 2^22..2^23, empty and 0-dim tensors. The
rounding ops are bit-exact (every step an exact fp32 operation); each op runs
device kernels (timed), never the CPU."""
import pytest
import torch
import torch.nn.functional as F

from torch_testing import executions, mark

INF, NAN = float("inf"), float("nan")
EDGE = torch.tensor([NAN, -NAN, INF, -INF, -0.0, 0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 4194304.5,
                     -4194304.5, 8388607.5, 8388609.0, 1e30, -1e-30, 3.4e38, 89.0, -89.0, 1e-8, 0.7, -3.25])
RANDOM = torch.Generator().manual_seed(0)
SPREAD = torch.cat([torch.randn(200, generator=RANDOM) * 10, torch.randn(200, generator=RANDOM) * 1e7,
                    torch.arange(-20, 20) * 0.5])
DTYPES = [torch.float32, torch.bfloat16]


def _same(got, want):
    """Equal dtype, shape and values, NaN where the CPU has NaN."""
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.is_floating_point():
        assert torch.equal(got.isnan(), want.isnan())
        bad = got.nan_to_num(0) != want.nan_to_num(0)
        assert not bad.any(), (want[bad][:8], got[bad][:8])
    else:
        assert torch.equal(got, want)


def _close(got, want, dtype):
    tol = 1e-4 if dtype == torch.float32 else 2e-2
    torch.testing.assert_close(got.cpu(), want, rtol=tol, atol=tol, equal_nan=True)


EXACT = {
    "trunc": torch.trunc,
    "round": torch.round,
    "round_decimals_0": lambda t: torch.round(t, decimals=0),
    "round_decimals_1": lambda t: torch.round(t, decimals=1),
    "round_decimals_3": lambda t: torch.round(t, decimals=3),
    "round_decimals_neg_1": lambda t: torch.round(t, decimals=-1),
    "round_decimals_neg_3": lambda t: torch.round(t, decimals=-3),
    "signbit": torch.signbit,
    "signbit_transposed": lambda t: torch.signbit(t.reshape(-1, 8).t()),
    "nan_to_num": torch.nan_to_num,
    "nan_to_num_values": lambda t: torch.nan_to_num(t, 1.0, 2.0, -3.0),
    "hardshrink": F.hardshrink,
    "div_trunc": lambda t: torch.div(t, t.flip(0), rounding_mode="trunc"),
    "div_trunc_number": lambda t: torch.div(t, 3.7, rounding_mode="trunc"),
    "div_trunc_broadcast": lambda t: torch.div(t.reshape(-1, 8), t[6:14], rounding_mode="trunc"),
    "bitwise_and": lambda t: (t > 0) & (t < 2),
    "bitwise_or_number": lambda t: torch.bitwise_or(t > 0, False),
    "bitwise_xor": lambda t: (t > 0) ^ t.isnan(),
}


@pytest.mark.parametrize("name", sorted(EXACT))
@pytest.mark.parametrize("dtype", DTYPES)
def test_exact_ops_match_cpu_bit_for_bit(name, dtype):
    fn = EXACT[name]
    for x in (EDGE, SPREAD[:EDGE.numel() * 10]):
        x = x.to(dtype)
        mark()
        _same(fn(x.to("neuron")), fn(x))
        assert executions(), f"{name} ran no device kernel"


CLOSE = {
    "sinh": torch.sinh,
    "sinc": torch.sinc,
    "entr": torch.special.entr,
    "logit": torch.logit,
    "logit_eps": lambda t: torch.logit(t, 1e-3),  # bf16: the bounds round to the dtype (hi = 1)
    "softshrink": F.softshrink,
    "softshrink_2": lambda t: F.softshrink(t, 2.0),
    "logaddexp2": lambda t: torch.logaddexp2(t, t.flip(0)),
    "logaddexp2_equal_infinities": lambda t: torch.logaddexp2(t, t),
    "smooth_l1": lambda t: F.smooth_l1_loss(t, t.flip(0), reduction="none", beta=0.7),
    "huber": lambda t: F.huber_loss(t, t.flip(0), reduction="none", delta=0.7),
    "mse_none": lambda t: F.mse_loss(t, t.flip(0), reduction="none"),
    "glu": lambda t: F.glu(t.reshape(2, -1), 0),
    "nansum": lambda t: torch.nansum(t.reshape(2, -1), 1),
    "i0": torch.i0,
    "i0e": torch.special.i0e,
    "i1": torch.special.i1,
    "i1e": torch.special.i1e,
    "prelu": lambda t: F.prelu(t.reshape(3, 8).t(), torch.tensor([0.25, -0.5, 2.0], dtype=t.dtype, device=t.device)),
}


@pytest.mark.parametrize("name", sorted(CLOSE))
@pytest.mark.parametrize("dtype", DTYPES)
def test_ops_match_cpu_with_special_values(name, dtype):
    fn = CLOSE[name]
    x = EDGE.to(dtype)
    mark()
    _close(fn(x.to("neuron")), fn(x), dtype)
    assert executions(), f"{name} ran no device kernel"


@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_and_losses_match_cpu(dtype):
    x = torch.randn(4, 7, 5, generator=RANDOM).to(dtype)
    y = torch.randn(4, 7, 5, generator=RANDOM).to(dtype)
    p = torch.rand(4, 7, generator=RANDOM).to(dtype)
    t = torch.rand(4, 7, generator=RANDOM).to(dtype)
    p[0, 0], p[0, 1], t[0, 0], t[0, 1] = 0.0, 1.0, 1.0, 0.0  # log(0) clamped to -100
    cases = {
        "prod_dims": lambda d: [d(x).prod(k) for k in range(3)] + [d(x).prod(1, keepdim=True)],
        "prod_all": lambda d: d(x).prod(),
        "prod_empty": lambda d: d(torch.empty(3, 0, dtype=dtype)).prod(1),
        "prod_0dim": lambda d: d(torch.tensor(2.5, dtype=dtype)).prod(),
        "renorm": lambda d: [torch.renorm(d(x), pn, 1, mx) for pn, mx in ((2, 1.0), (1, 0.5), (INF, 0.3))],
        "cross": lambda d: torch.linalg.cross(d(x[:, :3]), d(y[:, :3]), dim=1),
        "mse": lambda d: [F.mse_loss(d(x), d(y), reduction=r) for r in ("mean", "sum")],
        "bce": lambda d: [F.binary_cross_entropy(d(p), d(t), reduction=r) for r in ("none", "mean", "sum")],
        "bce_weight": lambda d: F.binary_cross_entropy(d(p), d(t), weight=d(t)),
    }
    for name, fn in cases.items():
        want = fn(lambda v: v)
        mark()
        got = fn(lambda v: v.to("neuron"))
        for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want]):
            _close(g, w, dtype)
        # the empty product is a fill (torch.ones), a one-element one a copy: no kernel execution
        assert executions() or name in ("prod_empty", "prod_0dim"), f"{name} ran no device kernel"


@pytest.mark.parametrize("fn", [torch.i0, torch.special.i0e, torch.special.i1, torch.special.i1e])
def test_bessel_series_both_intervals(fn):
    """Cephes' two Chebyshev series meet at |x| = 8; each side, and past exp's overflow (inf)."""
    x = torch.tensor([-8.0, 8.0, 7.9999995, 8.000001, -30.0, 0.25, 60.0, 88.0, 89.0, 1e3])
    _close(fn(x.to("neuron")), fn(x), torch.float32)


MOD_A = torch.tensor([7.0, -7.0, 7.0, -7.0, 0.0, -0.0, INF, -INF, NAN, 5.0, 1e30, 3.0, 2.5, 1e-40, 3e38, -1e-38, 5.5,
                      1.0, 0.3, -4.0])
MOD_B = torch.tensor([3.0, 3.0, -3.0, -3.0, 2.0, 2.0, 2.0, 3.0, 1.0, NAN, 1e-10, 0.1, -0.5, 3e-41, 1e-44, 3e38, INF,
                      0.0, -0.0, 2.0])
MODULO = {
    "fmod": torch.fmod,
    "remainder": torch.remainder,
    "floor_divide": torch.floor_divide,
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "copysign": torch.copysign,
}


def _c_fmod(a, b):
    """C's fmod (exact, so float64's rounded back): the CPU's vector kernel gives NaN where a / b
    overflows (1e30 % 1e-10; its scalar tail gives C's fmod), the device C's fmod everywhere."""
    return torch.fmod(a.double(), b.double()).to(a.dtype)


@pytest.mark.parametrize("name", sorted(MODULO))
@pytest.mark.parametrize("dtype", DTYPES)
def test_modulo_ops_are_exact(name, dtype):
    fn = MODULO[name]
    big = torch.randn(3000, generator=RANDOM) * 50
    small = torch.randn(3000, generator=RANDOM) * 3
    for a, b in ((MOD_A, MOD_B), (big, small), (big[:5].reshape(5, 1), small[:7])):
        a, b = a.to(dtype), b.to(dtype)
        mark()
        got = fn(a.to("neuron"), b.to("neuron"))
        assert executions(), f"{name} ran no device kernel"
        _same(got, _modulo_reference(name, fn, a, b))
        for number in (0.37, -2.0):  # fmod/remainder round the number to the dtype, floor division does not
            want = fn(a, number) if name not in ("fmod", "remainder") else \
                _modulo_reference(name, fn, a, torch.tensor(number, dtype=dtype))
            _same(fn(a.to("neuron"), number), want)


def _modulo_reference(name, fn, a, b):
    if name == "fmod":
        return _c_fmod(a, b)
    if name == "remainder":  # ATen's: fmod, plus b where it is non-zero with the other sign
        m = _c_fmod(a, b)
        return torch.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)
    return fn(a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nextafter_and_copysign_bit_for_bit(dtype):
    """Signed zeros, subnormals, the ends of the range and infinities, compared as bits."""
    big = torch.finfo(dtype).max
    x = torch.tensor([1.0, 1.0, -1.0, -1.0, 0.0, 0.0, -0.0, -0.0, INF, -INF, big, -big, 1e-45, -1e-45, NAN, 2.0, 3.5,
                      0.0, 1e-40, 5.0], dtype=dtype)
    y = torch.tensor([2.0, 0.0, 0.0, -2.0, 1.0, -1.0, 1.0, -1.0, 0.0, 0.0, INF, -INF, 0.0, 0.0, 1.0, NAN, 3.5, -0.0,
                      1.0, 5.0], dtype=dtype)
    bits = torch.int32 if dtype == torch.float32 else torch.int16
    for fn in (torch.nextafter, torch.copysign):
        want, got = fn(x, y), fn(x.to("neuron"), y.to("neuron")).cpu()
        assert torch.equal(got.isnan(), want.isnan())
        assert torch.equal(got.nan_to_num(0).view(bits), want.nan_to_num(0).view(bits)), (fn, want, got)


def test_rmod_of_a_number():
    a = torch.randn(50, generator=RANDOM) * 5
    _same(2.5 % a.to("neuron"), 2.5 % a)


def test_prod_of_one_element_is_a_new_tensor():
    x = torch.tensor([2.5], device="neuron")
    p = x.prod(0, keepdim=True)
    assert not p._is_view() and p.data_ptr() != x.data_ptr()


def test_backward_ops_match_cpu():
    """log_sigmoid_backward and _prelu_kernel_backward, through autograd."""
    x = EDGE.clone().requires_grad_()
    xd = EDGE.to("neuron").requires_grad_()
    F.logsigmoid(x).sum().backward()
    F.logsigmoid(xd).sum().backward()
    _close(xd.grad, x.grad, torch.float32)
    w = torch.tensor([0.25, -0.5, 2.0])
    a = torch.randn(4, 3, 5, generator=RANDOM)
    grads = []
    for dev in ("cpu", "neuron"):
        ad, wd = a.to(dev).detach().requires_grad_(), w.to(dev).detach().requires_grad_()
        (F.prelu(ad, wd) ** 2).sum().backward()
        grads.append((ad.grad.cpu(), wd.grad.cpu()))
    torch.testing.assert_close(grads[1], grads[0], rtol=1e-5, atol=1e-5)


def test_in_place_and_out_variants():
    x = EDGE.clone()
    for fn in (torch.Tensor.round_, torch.Tensor.trunc_, torch.Tensor.sinh_, torch.Tensor.nan_to_num_):
        want, got = fn(x.clone()), fn(x.to("neuron"))
        _close(got, want, torch.float32)
    out = torch.empty(0, dtype=torch.bool, device="neuron")
    torch.signbit(EDGE.to("neuron"), out=out)
    _same(out, torch.signbit(EDGE))
    out = torch.empty(0, device="neuron")
    torch.round(EDGE.to("neuron"), decimals=2, out=out)
    _same(out, torch.round(EDGE, decimals=2))


def test_refusals_name_the_op():
    n = EDGE.to("neuron")
    i = torch.ones(3, dtype=torch.int32, device="neuron")
    with pytest.raises(NotImplementedError, match=r"aten::fmod on neuron: floating dtypes only"):
        torch.fmod(i, i)
    with pytest.raises(NotImplementedError, match=r"aten::floor_divide on neuron: floating dtypes only"):
        i // i
    with pytest.raises(NotImplementedError, match=r"aten::bitwise_and.*bool tensors only"):
        torch.bitwise_and(i, i)
    with pytest.raises(NotImplementedError, match=r"aten::prod.*floating"):
        i.prod()
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(torch.tensor([1.5], device="neuron"), torch.tensor([1.0], device="neuron"))
    with pytest.raises(RuntimeError, match="lambda must be greater or equal to 0"):
        F.softshrink(n, -1.0)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(torch.ones(3, device="neuron"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_lgamma_matches_cpu_within_opinfo_tolerance(dtype):
    # Stirling's series at y + 8 less log of the shift's product for y >= 0.5,
    # reflection below (sin at x - round(x)): within OpInfo's tolerance of
    # the CPU (fp32 rtol 1.3e-6, atol 1e-5; bf16 rtol 1.6e-2), +inf at the
    # poles and at +-inf, NaN kept; lgamma_, out= and mvlgamma as well.
    x = torch.cat([torch.linspace(-9, 9, 2001), torch.linspace(0.9, 2.1, 301),
                   torch.tensor([0.0, -0.0, -1.0, -2.0, 1.0, 2.0, 0.5, 1e-6, -1e-6, -2.5, -0.999, -1.001,
                                 1e5, 1e7, 1e30, float("inf"), float("-inf"), float("nan")])]).to(dtype)
    want = torch.lgamma(x)
    tol = dict(rtol=1.3e-6, atol=1e-5) if dtype == torch.float32 else dict(rtol=1.6e-2, atol=1e-5)
    got = torch.lgamma(x.to("neuron")).cpu()
    torch.testing.assert_close(got, want, equal_nan=True, **tol)
    inplace = x.to("neuron")
    inplace.lgamma_()
    torch.testing.assert_close(inplace.cpu(), want, equal_nan=True, **tol)
    out = torch.empty(0, dtype=dtype).to("neuron")
    torch.lgamma(x.to("neuron"), out=out)
    torch.testing.assert_close(out.cpu(), want, equal_nan=True, **tol)
    y = x[torch.isfinite(x) & (x > 2)].reshape(-1)
    torch.testing.assert_close(torch.mvlgamma(y.to("neuron"), 3).cpu(), torch.mvlgamma(y, 3), **tol)


def test_lgamma_refuses_integers_naming_the_op():
    with pytest.raises(NotImplementedError, match="aten::lgamma on neuron"):
        torch.lgamma(torch.tensor([1, 2]).to("neuron"))
