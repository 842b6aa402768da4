"""torch.compile(fn, backend="neuron"): one kernel per captured graph.

Dynamo captures the FX graph (its guards, recompiles and graph breaks apply
as usual); AOTAutograd turns it into ATen ops, with the decompositions below
for the composite ops the fusion code generator has no rule for (softmax,
layer/RMS norm, linear with bias). Each ATen graph is then rebuilt node by
node as the simulator's compile() graph and handed to the simulator's
"neuron" compiler backend (backend/compile): the same lowering rules and
fusion code generator as nsim's C++ compile(), hence one kernel, launched
once per call, inside dynamo's "Torch-Compiled Region: N/M" profiler range.

A graph with an op the code generator cannot fuse (no rule, or a reduction
over an outer dim, an integer dtype, ...) is not silently mis-compiled: it
runs op by op on the device through the eager kernels, with a warning naming
the op and the reason.
"""
import operator
import warnings

import torch
from torch._dynamo import register_backend
from torch._functorch.aot_autograd import aot_module_simplified
from functorch.compile import make_boxed_func

from torch_nsim import _C

aten = torch.ops.aten

# FX targets that are the same computation as an nsim op of another name.
_RENAMED = {
    "aten::_unsafe_view": "aten::view",
    "aten::expand_copy": "aten::expand",
}


def _rms_norm(x, normalized_shape, weight=None, eps=None):
    dims = list(range(-len(normalized_shape), 0))
    if eps is None:
        eps = torch.finfo(x.dtype).eps
    xf = x.float() if x.dtype != torch.float32 else x
    y = xf * torch.rsqrt(xf.mul(xf).mean(dims, keepdim=True) + eps)
    y = y.to(x.dtype)
    return y * weight if weight is not None else y


def _fused_rms_norm(x, normalized_shape, weight, eps):
    y = _rms_norm(x, normalized_shape, weight, eps)
    dims = list(range(-len(normalized_shape), 0))
    return y, torch.rsqrt(x.float().mul(x.float()).mean(dims, keepdim=True) + (eps or torch.finfo(x.dtype).eps))


def _native_layer_norm(x, normalized_shape, weight, bias, eps):
    dims = list(range(-len(normalized_shape), 0))
    xf = x.float() if x.dtype != torch.float32 else x
    mean = xf.mean(dims, keepdim=True)
    d = xf - mean
    rstd = torch.rsqrt(d.mul(d).mean(dims, keepdim=True) + eps)
    y = d * rstd
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y.to(x.dtype), mean, rstd


def _softmax(x, dim, half_to_float):
    xf = x.float() if x.dtype != torch.float32 else x
    e = torch.exp(xf - xf.amax(dim, keepdim=True))
    return (e / e.sum(dim, keepdim=True)).to(x.dtype)


def _addmm(bias, a, b, beta=1, alpha=1):
    out = torch.mm(a, b)
    if alpha != 1:
        out = out * alpha
    return out + (bias if beta == 1 else bias * beta)


DECOMPOSITIONS = {
    aten.rms_norm.default: _rms_norm,
    aten._fused_rms_norm.default: _fused_rms_norm,
    aten.native_layer_norm.default: _native_layer_norm,
    aten._softmax.default: _softmax,
    aten.addmm.default: _addmm,
}


class Unsupported(Exception):
    pass


def _op_name(target):
    s = target._schema
    name = s.name + ("." + s.overload_name if s.overload_name else "")
    return _RENAMED.get(name, name)


def _meta(t):
    return (tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.dtype)


def _bound_args(node):
    """The node's arguments by schema name (defaults filled in)."""
    schema = node.target._schema
    values = {}
    for i, a in enumerate(schema.arguments):
        if i < len(node.args):
            values[a.name] = node.args[i]
        elif a.name in node.kwargs:
            values[a.name] = node.kwargs[a.name]
        elif a.has_default_value():
            values[a.name] = a.default_value
        else:
            values[a.name] = None
    return schema, values


def _build(gm, example_inputs):
    """The FX graph as an nsim compile() region; raises Unsupported(op, why)."""
    b = _C.RegionBuilder()
    devices = {t.device.index or 0 for t in example_inputs if isinstance(t, torch.Tensor)}
    b.set_device(min(devices) if devices else 0)
    ids = {}
    inputs = iter(example_inputs)
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            t = next(inputs)
            if not isinstance(t, torch.Tensor) or t.device.type != "neuron":
                raise Unsupported(f"input {node.name}", f"is {type(t).__name__} on "
                                  f"{getattr(t, 'device', 'the host')}, not a neuron tensor")
            ids[node] = b.placeholder(node.name, tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.dtype,
                                      t.device.index or 0)
        elif node.op == "call_function" and node.target is operator.getitem:
            src, i = node.args
            ids[node] = ids[src][i]
        elif node.op == "call_function":
            if not isinstance(node.target, torch._ops.OpOverload):
                raise Unsupported(str(node.target), "is not an ATen op")
            name = _op_name(node.target)
            known, nsim_args = _C.nsim_schema_args(name)
            if not known:
                raise Unsupported(name, "has no lowering rule")
            schema, values = _bound_args(node)
            for a in schema.arguments:  # torch arguments the nsim op does not take must be absent
                if a.name not in nsim_args and values[a.name] is not None and not (
                        a.has_default_value() and values[a.name] == a.default_value):
                    raise Unsupported(name, f"argument {a.name}={values[a.name]!r} is not supported")
            args = []
            for n in nsim_args:
                v = values.get(n)
                if isinstance(v, torch.fx.Node):
                    args.append(("v", ids[v]))
                else:
                    args.append(("c", v))
            val = node.meta.get("val")
            outs = val if isinstance(val, (tuple, list)) else [val]
            try:
                res = b.call(name, args, [_meta(o) for o in outs], node.name)
            except ValueError as e:
                raise Unsupported(name, str(e)) from None
            ids[node] = res if isinstance(val, (tuple, list)) else res[0]
        elif node.op == "output":
            outs = node.args[0]
            flat = []
            for o in (outs if isinstance(outs, (tuple, list)) else [outs]):
                if not isinstance(o, torch.fx.Node):
                    raise Unsupported("output", f"{o!r} is not a tensor computed by the graph")
                flat.append(ids[o])
            b.set_outputs(flat)
        elif node.op == "get_attr":
            raise Unsupported(node.name, "graph constants (get_attr) are not supported")
    return b


_region_counter = [0]


def _compile_graph(gm, example_inputs):
    try:
        builder = _build(gm, example_inputs)
        _region_counter[0] += 1
        region = builder.compile(f"torch_compiled_region_{_region_counter[0] - 1}")
    except Unsupported as e:
        op, why = e.args
        warnings.warn(f"torch.compile(backend='neuron'): {op} cannot be fused into one kernel ({why}); "
                      "this graph runs op by op on the device", stacklevel=2)
        return make_boxed_func(gm.forward)

    def run(args):
        return region.run([a for a in args])

    run._boxed_call = True
    return run


def neuron_backend(gm, example_inputs):
    """The Dynamo backend registered as "neuron"."""
    return aot_module_simplified(gm, example_inputs, fw_compiler=_compile_graph, decompositions=DECOMPOSITIONS)


register_backend(name="neuron", compiler_fn=neuron_backend)
