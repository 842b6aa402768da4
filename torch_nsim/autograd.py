"""Autograd for the composite ops the device runs as one kernel of its own.

PyTorch differentiates a CompositeImplicitAutograd op (softmax, layer_norm,
rms_norm, matmul, reshape, to, ...) through the ops it decomposes into. The
neuron device registers such ops directly (one fused kernel, or a view), and
that kernel bypasses the decomposition, so autograd recorded nothing and
gradients came back None with only a warning. For each of these ops (found
in the dispatcher, not listed by hand) an AutogradPrivateUse1 kernel now
decomposes the op when a gradient is needed, and otherwise hands it to the
device kernel without a second profiler row (a redispatch, not a new call).
"""
import torch

_LIB = torch.library.Library("aten", "IMPL")


def _needs_grad(args, kwargs):
    return torch.is_grad_enabled() and any(
        isinstance(t, torch.Tensor) and t.requires_grad
        for t in torch.utils._pytree.tree_leaves((args, kwargs)))


def _kernel(op):
    def kernel(keyset, *args, **kwargs):
        if _needs_grad(args, kwargs):
            return op.decompose(*args, **kwargs)
        return op.redispatch(keyset & torch._C._after_autograd_keyset, *args, **kwargs)
    return kernel


def aten_op(qualified_name):
    """torch.ops.aten.op.overload for "aten::op.overload"."""
    base, _, overload = qualified_name.partition("::")[2].partition(".")
    return getattr(getattr(torch.ops.aten, base), overload or "default")


def composite_ops_run_by_the_device():
    """aten ops with a neuron kernel whose autograd comes from decomposing."""
    return sorted(n for n in torch._C._dispatch_get_all_op_names()
                  if n.startswith("aten::")
                  and torch._C._dispatch_has_kernel_for_dispatch_key(n, "PrivateUse1")
                  and torch._C._dispatch_has_kernel_for_dispatch_key(n, "CompositeImplicitAutograd"))


def register():
    for name in composite_ops_run_by_the_device():
        _LIB.impl(name.split("::")[1], _kernel(aten_op(name)), "AutogradPrivateUse1", with_keyset=True)
