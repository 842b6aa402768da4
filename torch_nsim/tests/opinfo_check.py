"""Runs one PyTorch OpInfo entry on device "neuron" against the CPU, the way
PyTorch's device-generic tests compare a device with the CPU: each sample
input (at most three per dtype) made on the CPU, run there and, moved, on the
device, through the function, in-place and out= variants.

An outcome per (op, dtype): "pass"; "unsupported" (a NotImplementedError
naming the aten op the device has no kernel for); or a failure: "wrong" (the
device's result differs from the CPU's), "error" (any other exception where
the CPU succeeded: an error that names no missing kernel).
"""
import re

import torch

SAMPLES_PER_DTYPE = 3
DTYPES = (torch.float32, torch.bfloat16)
# The device rounds each op's fp32 result to its dtype, as the CPU does; sums
# and transcendental functions may differ in the last bits.
TOLERANCE = {torch.float32: (1e-4, 1e-4), torch.bfloat16: (2e-2, 2e-2)}


# A clear "no kernel" error names the aten op (and dtype) the device lacks:
# torch_nsim's own ("aten::cumsum has no neuron kernel ...", "aten::to.dtype:
# the neuron device computes ... not Long") or PyTorch's for an op a backend
# must override ("convolution_overrideable not implemented").
MISSING = re.compile(r"aten::[\w.]+|convolution_overrideable")


def op_id(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


class Outcome:
    def __init__(self, kind, detail=""):
        self.kind, self.detail = kind, detail

    def __repr__(self):
        return f"{self.kind}: {self.detail}" if self.detail else self.kind


def _map(x, f):
    if isinstance(x, torch.Tensor):
        return f(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_map(v, f) for v in x)
    if isinstance(x, dict):
        return {k: _map(v, f) for k, v in x.items()}
    return x


def _to_device(x):
    return _map(x, lambda t: t.to("neuron"))


def _to_cpu(x):
    return _map(x, lambda t: t.cpu())


def _variants(op):
    """(name, call(input, args, kwargs)) of each variant the OpInfo has."""
    yield "function", lambda i, a, k: op.op(i, *a, **k)
    if op.inplace_variant is not None:
        yield "inplace", lambda i, a, k: op.inplace_variant(i.clone(), *a, **k)
    if op.supports_out:
        def with_out(i, a, k):
            ref = op.op(i, *a, **k)
            out = _map(ref, lambda t: torch.empty_like(t))
            op.op(i, *a, **k, out=out)
            return out
        yield "out", with_out


def _max_error(a, b):
    errors = []
    _map_pairs(a, b, lambda x, y: errors.append((x.double() - y.double()).abs().nan_to_num(0).max().item()
                                               if x.numel() else 0.0))
    return max(errors, default=0.0)


def _map_pairs(a, b, f):
    if isinstance(a, torch.Tensor):
        f(a, b)
    elif isinstance(a, (list, tuple)):
        for x, y in zip(a, b):
            _map_pairs(x, y, f)


def _compare(got, want, dtype, uninitialised, exact):
    """Equal to the CPU within the dtype's tolerance, or at most twice as far
    from the float64 result as the CPU is (composite ops round each step to
    the dtype: bf16 addr may differ from the CPU's by more than a bf16 ulp
    and still be closer to the exact value)."""
    rtol, atol = TOLERANCE[dtype]
    if uninitialised:  # torch.empty and friends: only the metadata is defined
        torch.testing.assert_close(_map(got, lambda t: torch.zeros_like(t)),
                                   _map(want, lambda t: torch.zeros_like(t)), check_device=False)
        return
    try:
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True, check_device=False)
    except AssertionError:
        # shapes, dtypes and where the NaNs are must still agree exactly
        torch.testing.assert_close(got, want, rtol=float("inf"), atol=float("inf"), equal_nan=True,
                                   check_device=False)
        if exact is None or _max_error(got, exact) > 2 * _max_error(want, exact):
            raise


def _exact(call, s):
    """The variant's result in float64 on the CPU (None if it has none)."""
    widen = lambda t: t.double() if t.is_floating_point() else t  # noqa: E731
    try:
        return call(_map(s.input, widen), _map(s.args, widen), _map(s.kwargs, widen))
    except Exception:
        return None


# Random ops cannot match the CPU's numbers (the device has its own generator,
# csrc/random_ops.cc): a sample whose result is random (`random(sample)`) is
# checked by the properties its distribution guarantees instead
# (`holds(got, want, sample)`, on the result moved to the CPU); shapes and
# dtypes must still agree. Samples that are not random (dropout
# with p = 0 or in eval mode) are compared with the CPU as any other op.
def _within(lo, hi):
    return lambda g, w, s: bool(((g >= lo(s)) & (g <= hi(s))).all())


def _integral_in(lo, hi):
    return lambda g, w, s: bool(((g == g.floor()) & (g >= lo(s)) & (g < hi(s))).all())


def _kept_or(dropped):
    """Dropout: every element is the CPU's kept value x / (1 - p) (or alpha dropout's affine image),
    or the dropped value."""
    def holds(g, w, s):
        p = s.kwargs.get("p", 0.5)
        x = s.input.float()
        if dropped == "alpha":
            alpha = 1.7580993408473766
            a = 1.0 / ((alpha * alpha * p + 1) * (1 - p)) ** 0.5
            kept, drop = x * a + alpha * a * p, torch.full_like(x, -alpha * a + alpha * a * p)
        else:
            kept, drop = x / (1 - p), torch.zeros_like(x)
        rtol, atol = TOLERANCE[g.dtype] if g.dtype in TOLERANCE else (1e-4, 1e-4)
        close = lambda a, b: (a - b).abs() <= atol + rtol * b.abs()  # noqa: E731
        return bool((close(g.float(), kept) | close(g.float(), drop)).all())
    return holds


def _rrelu_holds(g, s):
    x, g = s.input.float(), g.float()
    lo, hi = s.kwargs.get("lower", 1 / 8), s.kwargs.get("upper", 1 / 3)
    rtol, atol = TOLERANCE.get(s.input.dtype, (1e-4, 1e-4))
    pos = x > 0
    slope_ok = (g >= x * hi - atol - rtol * g.abs()) & (g <= x * lo + atol + rtol * g.abs())
    return bool(torch.where(pos, (g - x).abs() <= atol + rtol * x.abs(), slope_ok).all())


def _finite(g, w, s):
    return bool((g.isfinite() == w.isfinite()).all())


def _always(s):
    return True


def _training_dropout(s):
    return s.kwargs.get("training", True) and 0 < s.kwargs.get("p", 0.5) < 1  # p = 1 drops every element


RANDOM = {
    "uniform": (_always, _within(lambda s: s.args[0], lambda s: s.args[1])),
    "rand_like": (_always, _within(lambda s: 0, lambda s: 1)),
    "randint_like": (_always, _integral_in(lambda s: s.args[0] if len(s.args) > 1 else 0, lambda s: s.args[-1])),
    "bernoulli": (_always, lambda g, w, s: bool(((g == 0) | (g == 1)).all())),
    "normal": (_always, _finite),
    "normal.in_place": (_always, _finite),
    "normal.number_mean": (_always, _finite),
    "randn_like": (_always, _finite),
    "log_normal": (_always, lambda g, w, s: bool(((g >= 0) & g.isfinite()).all())),
    "exponential": (_always, lambda g, w, s: bool((g >= 0).all())),
    "cauchy": (_always, lambda g, w, s: not bool(g.isnan().any())),
    "geometric": (_always, lambda g, w, s: bool(((g == g.floor()) & (g >= 1)).all())),
    "nn.functional.dropout": (_training_dropout, _kept_or("zero")),
    "nn.functional.dropout2d": (_training_dropout, _kept_or("zero")),
    "nn.functional.dropout3d": (_training_dropout, _kept_or("zero")),
    "nn.functional.alpha_dropout": (_training_dropout, _kept_or("alpha")),
    "nn.functional.feature_alpha_dropout.with_train": (_training_dropout, _kept_or("alpha")),
    # rrelu in training: x where x > 0, else x times a slope in [lower, upper]
    "nn.functional.rrelu": (lambda s: s.kwargs.get("training", False), lambda g, w, s: _rrelu_holds(g, s)),
    # attention with dropout: shape, dtype and finiteness (the probabilities dropped are not observable)
    "nn.functional.scaled_dot_product_attention": (lambda s: s.kwargs.get("dropout_p", 0.0) > 0, _finite),
    "nn.functional.multi_head_attention_forward": (lambda s: s.kwargs.get("training", True) and s.args[9] > 0,
                                                   _finite),
}


def _pairs(g, w):
    out = []
    _map_pairs(g, w, lambda a, b: out.append((a, b)))
    return out if out else [(g, w)]


def _holds(op, s, got, want):
    """True if `op`'s sample `s` is random and its device result has the distribution's properties."""
    entry = RANDOM.get(op_id(op))
    if entry is None or not entry[0](s):
        return False
    pairs = _pairs(got, want)
    if not all(isinstance(a, torch.Tensor) and a.shape == b.shape and a.dtype == b.dtype for a, b in pairs):
        return False
    return all(entry[1](a, b, s) for a, b in _pairs(got, want) if a is not None and a.numel())


# sort and argsort without stable=True, and topk, leave the order of equal
# values unspecified (PyTorch's documentation); the CPU's introsort orders
# them its own way, the device keeps them stable. Such a result is checked
# by what is specified: the values equal the CPU's (sort, topk), the indices
# of each row are distinct and pick exactly those values from the input.
def _dim_arg(s, position):
    dim = s.kwargs.get("dim", s.args[position] if len(s.args) > position else -1)
    return dim if s.input.dim() else 0


def _ties_hold(op, s, got, want):
    name = op_id(op)
    if name not in ("sort", "argsort", "topk") or s.kwargs.get("stable", False):
        return False
    x = s.input if s.input.dim() else s.input.reshape(1)
    dim = _dim_arg(s, 1 if name == "topk" else 0)
    g_idx, w_idx = (got, want) if name == "argsort" else (got[1], want[1])
    if g_idx.dtype != torch.int64 or g_idx.shape != w_idx.shape:
        return False
    if not s.input.dim():
        g_idx, w_idx = g_idx.reshape(1), w_idx.reshape(1)
    picked, wanted = x.gather(dim, g_idx), x.gather(dim, w_idx)
    distinct = bool((g_idx.sort(dim).values.diff(dim=dim) != 0).all()) if g_idx.size(dim) > 1 else True
    same = torch.equal(picked.nan_to_num(0), wanted.nan_to_num(0)) and torch.equal(picked.isnan(), wanted.isnan())
    if name != "argsort":
        same = same and torch.equal(got[0].nan_to_num(0), want[0].nan_to_num(0))
    return distinct and same


# Ops whose tensor arguments (not the input) must stay on the host.
HOST_ARGS = {"tensor_split"}


def check(op, dtype, uninitialised=False):
    """The outcome of `op` in `dtype` (None when the CPU has no sample to run)."""
    try:
        samples = list(op.sample_inputs("cpu", dtype))[:SAMPLES_PER_DTYPE]
    except Exception:  # the OpInfo cannot make samples of this dtype
        return None
    ran = False
    for variant, call in _variants(op):
        for s in samples:
            try:
                want = call(s.input, s.args, s.kwargs)
            except Exception:  # not a valid input for this variant on the CPU either
                continue
            ran = True
            try:
                args = s.args if op.name in HOST_ARGS else _to_device(s.args)
                got = _to_cpu(call(_to_device(s.input), args, _to_device(s.kwargs)))
            except NotImplementedError as e:
                missing = MISSING.search(str(e))
                if missing:
                    return Outcome("unsupported", missing.group(0))
                return Outcome("error", f"{variant}: NotImplementedError: {e}")
            except Exception as e:
                return Outcome("error", f"{variant}: {type(e).__name__}: {str(e)[:300]}")
            try:
                if not _holds(op, s, got, want) and not _ties_hold(op, s, got, want):
                    _compare(got, want, dtype, uninitialised, _exact(call, s))
            except AssertionError as e:
                return Outcome("wrong", f"{variant}, sample {s.summary() if hasattr(s, 'summary') else s}: "
                                        f"{str(e)[:300]}")
    return Outcome("pass") if ran else None
