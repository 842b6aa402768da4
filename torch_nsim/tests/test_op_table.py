"""The op table and the composite ops' single decomposition.

Every op declared in backend/unary_ops.def, binary_ops.def and
reduction_ops.def runs on the device eagerly and
under torch.compile and matches PyTorch's CPU kernel, with no test to write
for a new op. The composite ops reach torch.compile through the simulator's
C++ decompositions (backend/compile/decompositions.cc, also used by nsim's
compile()); the tests below each caught a drift of the former Python copy."""
import os
import re
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from torch_testing import ROOT, executions, mark

with open(os.path.join(ROOT, "backend", "unary_ops.def")) as table:
    OPS = re.findall(r"^NSIM_UNARY_OP\((\w+),", table.read(), re.M)
with open(os.path.join(ROOT, "backend", "binary_ops.def")) as table:
    BINARY_OPS = re.findall(r"^NSIM_BINARY_OP\((\w+), \w+, (\w+),", table.read(), re.M)
with open(os.path.join(ROOT, "backend", "reduction_ops.def")) as table:
    REDUCTIONS = re.findall(r'^NSIM_REDUCTION_OP\((\w+), \w+, \w+, "\.?(\w*)",', table.read(), re.M)


@pytest.fixture(autouse=True)
def _reset_dynamo():
    torch._dynamo.reset()


def compiled_once(f, *args):
    """f compiled for the device and run once: its result and its one fused
    execution (a "not fused" warning fails the test)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*not fused.*")
        mark()
        out = torch.compile(f, backend="neuron", fullgraph=True)(*args)
        torch.neuron.synchronize()
    ex = executions()
    assert len(ex) == 1 and ex[0][0].startswith("torch_compiled_region"), ex
    return out


def test_the_table_is_read():
    assert {"exp", "sigmoid", "neg"} <= set(OPS)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", OPS)
def test_table_op_matches_cpu_eager_and_compiled(name, dtype):
    op = getattr(torch.ops.aten, name).default
    x = (torch.randn(8, 64, generator=torch.Generator().manual_seed(0)) * 4).to(dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.float32 else dict(rtol=1.6e-2, atol=1e-2)
    want = op(x)
    torch.testing.assert_close(op(x.to("neuron")).cpu(), want, equal_nan=True, **tol)
    torch.testing.assert_close(compiled_once(lambda t: op(t), x.to("neuron")).cpu(), want, equal_nan=True, **tol)


def test_the_binary_table_is_read():
    assert {("add", "ALPHA"), ("div", "SCALAR"), ("maximum", "PLAIN")} <= set(BINARY_OPS)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name,form", BINARY_OPS)
def test_binary_table_op_matches_cpu_eager_and_compiled(name, form, dtype):
    packet = getattr(torch.ops.aten, name)
    overload = {"PLAIN": "default", "EXPONENT": "Tensor_Tensor"}.get(form, "Tensor")
    op = getattr(packet, overload)
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(8, 64, generator=g) * 4).to(dtype)
    y = (torch.rand(64, generator=g) * 4 + 0.25).to(dtype)  # a row, broadcast; no division by ~0
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.float32 else dict(rtol=1.6e-2, atol=1e-2)
    tol["equal_nan"] = True  # pow of a negative base: NaN on both
    want = op(x, y)
    torch.testing.assert_close(op(x.to("neuron"), y.to("neuron")).cpu(), want, **tol)
    got = compiled_once(lambda a, b: op(a, b), x.to("neuron"), y.to("neuron"))
    torch.testing.assert_close(got.cpu(), want, **tol)
    if form == "EXPONENT":  # the .Scalar overload: a number base
        torch.testing.assert_close(packet.Scalar(0.75, x.to("neuron")).cpu(), packet.Scalar(0.75, x), **tol)
    elif form != "PLAIN":  # the .Scalar overload
        torch.testing.assert_close(packet.Scalar(x.to("neuron"), 0.75).cpu(), packet.Scalar(x, 0.75), **tol)


POW_BASES = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, -8.0, 0.5, 3.7, -3.7, float("inf"), float("-inf"), float("nan"), 1e-30]
POW_EXPONENTS = [0.0, -0.0, 1.0, 2.0, 3.0, -1.0, -2.0, -3.0, 0.5, 1 / 3, 2.5, 31.0, float("inf"), float("-inf"),
                 float("nan")]


def bits(t):
    return t.view(torch.int16 if t.dtype == torch.bfloat16 else torch.int32)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_pow_tensor_tensor_special_values_match_cpu_bit_for_bit(dtype):
    # C99's pow on every pair: 0^0 = 1, (-2)^3 = -8, (-2)^0.5 = NaN, (-0)^-1 =
    # -inf, 1^NaN = 1, (-1)^inf = 1, ... eagerly and compiled. These results
    # are exact, so the CPU's Sleef vector path and the device's powf agree
    # bit for bit (elsewhere they differ by up to one fp32 ulp: below).
    x = torch.tensor(POW_BASES).repeat_interleave(len(POW_EXPONENTS)).to(dtype)
    y = torch.tensor(POW_EXPONENTS).repeat(len(POW_BASES)).to(dtype)
    want = torch.pow(x, y)
    got = torch.pow(x.to("neuron"), y.to("neuron")).cpu()
    same = (bits(got) == bits(want)) | (got.isnan() & want.isnan())
    assert same.all(), list(zip(x[~same].tolist(), y[~same].tolist(), got[~same].tolist(), want[~same].tolist()))
    compiled = compiled_once(lambda a, b: torch.pow(a, b) * 1.0, x.to("neuron"), y.to("neuron")).cpu()
    assert ((bits(compiled) == bits(want)) | (compiled.isnan() & want.isnan())).all()


def test_pow_tensor_tensor_within_one_ulp_of_cpu_and_bf16_exact():
    # fp32: the device's pow is C's powf (correctly rounded here); the CPU's
    # vector kernel is Sleef's powf (within 1 ulp), so a few in a thousand
    # differ by one ulp, never more. bf16 is computed in fp32 and rounded once
    # on both: equal.
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4096, generator=g) * 3
    y = torch.randn(4096, generator=g) * 4
    x[::7], y[::5] = x[::7].round(), y[::5].round()  # integer exponents of negative bases
    got = torch.pow(x.to("neuron"), y.to("neuron")).cpu()
    want = torch.pow(x, y)
    both_nan = got.isnan() & want.isnan()
    assert (bits(got) - bits(want))[~both_nan].abs().max() <= 1
    xb, yb = x.bfloat16(), y.bfloat16()
    gotb = torch.pow(xb.to("neuron"), yb.to("neuron")).cpu()
    wantb = torch.pow(xb, yb)
    assert ((bits(gotb) == bits(wantb)) | (gotb.isnan() & wantb.isnan())).all()


def test_pow_number_base_rounds_to_bf16_as_aten():
    # pow.Scalar(0.3, bf16 tensor): ATen casts 0.3 to bf16 (0.30078125)
    # before powf; eager and compiled do the same.
    y = torch.linspace(-20, 20, 256).bfloat16()
    want = torch.pow(0.3, y)
    assert torch.equal(torch.pow(0.3, y.to("neuron")).cpu(), want)
    assert torch.equal(compiled_once(lambda t: torch.pow(0.3, t) * 1.0, y.to("neuron")).cpu(), want)


def test_pow_integer_tensors_are_refused_naming_the_op():
    with pytest.raises(Exception, match="pow"):
        torch.pow(torch.tensor([2, 3]).to("neuron"), torch.tensor([2, 2]).to("neuron"))


def test_hardsigmoid_matches_numpy():
    # The worked example of docs/adding-an-op.md, over both clamps.
    x = torch.linspace(-5, 5, 1024).reshape(8, 128)
    want = np.minimum(np.maximum(x.numpy() + np.float32(3), 0), 6) / np.float32(6)
    np.testing.assert_array_equal(F.hardsigmoid(x.to("neuron")).cpu().numpy(), want)
    got = compiled_once(lambda t: F.hardsigmoid(t) * t, x.to("neuron")).cpu().numpy()
    np.testing.assert_allclose(got, want * x.numpy(), rtol=1e-6)


def test_fused_rms_norm_eps_zero_means_zero():
    # The former Python decomposition computed rstd with `eps or finfo.eps`:
    # 1.2e-7 added to a mean square of ~1e-6 moved rstd by ~6%.
    x = torch.randn(4, 64, generator=torch.Generator().manual_seed(1)) * 1e-3
    w = torch.randn(64, generator=torch.Generator().manual_seed(2))
    f = lambda x, w: torch.ops.aten._fused_rms_norm(x, [64], w, 0.0)  # noqa: E731
    want = f(x, w)
    got = compiled_once(f, x.to("neuron"), w.to("neuron"))
    for g, e in zip(got, want):
        torch.testing.assert_close(g.cpu(), e, rtol=1e-5, atol=0)


def test_compiled_rms_norm_rounds_once():
    # x * rstd * w in fp32, rounded to bf16 once (the CPU reference, eager
    # and compile()); the former Python copy rounded x * rstd to bf16 and
    # then multiplied by w in bf16, a second rounding that changed ~1 in 4
    # elements by one bf16 ulp.
    g = torch.Generator().manual_seed(3)
    x = torch.randn(64, 512, generator=g).to(torch.bfloat16)
    w = torch.randn(512, generator=g).to(torch.bfloat16)
    xd = x.double()
    once = (xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + 1e-6) * w.double()).to(torch.bfloat16)
    got = compiled_once(lambda x, w: F.rms_norm(x, [512], w, 1e-6), x.to("neuron"), w.to("neuron")).cpu()
    assert (got != once).float().mean().item() < 0.01


def test_the_reduction_table_is_read():
    assert {("sum", "dim_IntList"), ("mean", "dim"), ("amax", "")} <= set(REDUCTIONS)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name,overload", REDUCTIONS)
def test_reduction_table_op_matches_cpu_eager_and_compiled(name, overload, dtype):
    op = getattr(getattr(torch.ops.aten, name), overload or "default")
    x = (torch.randn(4, 8, 64, generator=torch.Generator().manual_seed(0)) * 4).to(dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else dict(rtol=1.6e-2, atol=1e-2)
    torch.testing.assert_close(op(x.to("neuron"), [1], True).cpu(), op(x, [1], True), **tol)  # a strided row
    for keepdim in (True, False):  # compile() lowers reductions over the innermost dim
        want = op(x, [-1], keepdim)
        torch.testing.assert_close(op(x.to("neuron"), [-1], keepdim).cpu(), want, **tol)
        got = compiled_once(lambda t: op(t, [-1], keepdim) * 2, x.to("neuron"))
        torch.testing.assert_close(got.cpu(), want * 2, **tol)
