"""torch.compile(fn, backend="neuron"): one kernel per captured graph.

Dynamo captures the FX graph (its guards, recompiles and graph breaks apply
as usual); AOTAutograd turns it into ATen ops, decomposing the composite ops the
fusion code generator has no rule for (softmax, layer/RMS norm, var) with the
simulator's own C++ decompositions (the ones nsim's compile() traces
through, replayed here on torch's tensors), and linear with bias as mm + add. Each ATen graph is then rebuilt node by
node as the simulator's compile() graph and handed to the simulator's
"neuron" compiler backend (backend/compile): the same lowering rules and
fusion code generator as nsim's C++ compile(), hence one kernel, launched
once per call, inside dynamo's "Torch-Compiled Region: N/M" profiler range.

A graph with ops the code generator cannot fuse (no rule, a reduction over
an outer dim, a reshape of a computed value, ...) is split, in graph order,
into fused kernels and the ops between them, which run eagerly on the device
(a view costs no kernel); a warning names each unfused compute op and why.
"""
import operator
import os
import warnings

import torch
from torch._dynamo import register_backend
from torch._functorch.aot_autograd import aot_module_simplified

from torch_nsim import _C
from torch_nsim.autograd import aten_op

aten = torch.ops.aten

# Set to 1 to check every fused kernel against the CPU (see set_check).
CHECK_ENV = "TORCH_NSIM_CHECK_COMPILE"

# FX targets that are the same computation as an nsim op of another name.
_RENAMED = {
    "aten::_unsafe_view": "aten::view",
    "aten::expand_copy": "aten::expand",
}


def _meta(t):
    return (tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.dtype)


def _meta_like(t):
    """A meta tensor with t's shape, strides, storage offset and dtype (no data)."""
    span = sum((n - 1) * st for n, st in zip(t.shape, t.stride())) + 1 if t.numel() else 0
    storage = torch.empty(t.storage_offset() + span, dtype=t.dtype, device="meta")
    return storage.as_strided(t.shape, t.stride(), t.storage_offset())


def _arg_spec(v):
    if isinstance(v, torch.Tensor):
        return ("t", *_meta(v), v.device.index or 0)
    return ("c", v)


def _replay(nsim_name, values):
    """nsim op `nsim_name` on `values` (by argument name) as the ATen ops its
    C++ decomposition dispatches (backend/compile/decompositions.cc, the one
    copy, shared with nsim's compile()), recorded by AOTAutograd."""
    args = [values.get(n) for n in _C.nsim_schema_args(nsim_name)[1]]
    calls, outputs = _C.decomposition(nsim_name, [_arg_spec(a) for a in args])
    env = dict(enumerate(a for a in args if isinstance(a, torch.Tensor)))
    for name, call_args, results in calls:
        names = _C.nsim_schema_args(name)[1]
        vals = [env[x] if kind == "v" else x for kind, x in call_args]
        if name == "aten::where.self":
            vals = _where_operands(vals)
        out = aten_op(name)(vals[0], **dict(zip(names[1:], vals[1:])))
        env.update(zip(results, out if isinstance(out, (tuple, list)) else [out]))
    return tuple(env[o] for o in outputs)


def _where_operands(vals):
    """where.self's operands with a number (a wrapped scalar in the C++
    decomposition) as the 0-dim tensor torch.where(c, x, number) makes: the
    result type's, on the other operand's device (torch's where.self takes no
    numbers)."""
    cond, a, b = vals
    tensor = a if isinstance(a, torch.Tensor) else b
    def lift(v):
        if isinstance(v, torch.Tensor):
            return v
        return torch.scalar_tensor(v, dtype=torch.result_type(tensor, v))  # a host constant (_scalar_constant)
    return [cond, lift(a), lift(b)]


def _scalar_constant(node):
    """Whether FX node `node` is a number made a 0-dim tensor (torch.where(c, x, 0.0) and
    threshold_backward's 0): a fused where.self takes it as an immediate, not an input."""
    return isinstance(node, torch.fx.Node) and node.target is torch.ops.aten.scalar_tensor.default


def _immediate(node, consumer):
    if _op_name(consumer.target) != "aten::where.self":
        raise Unsupported(_op_name(consumer.target), "takes a 0-dim constant tensor only in where")
    return ("c", node.args[0])


def _bind(op, args, kwargs):
    """op's arguments by schema name, defaults filled in."""
    values = {}
    for i, a in enumerate(op._schema.arguments):
        if i < len(args):
            values[a.name] = args[i]
        elif a.name in kwargs:
            values[a.name] = kwargs[a.name]
        else:
            values[a.name] = a.default_value if a.has_default_value() else None
    return values


def _decomposition(op, nsim_name, adapt=lambda v: v, results=None):
    """op computed as nsim op `nsim_name` (arguments passed through `adapt`),
    returning its results or result number `results`."""
    def decompose(*args, **kwargs):
        out = _replay(nsim_name, adapt(_bind(op, args, kwargs)))
        return out[results] if results is not None else (out[0] if len(out) == 1 else out)
    return decompose


def _addmm(bias, a, b, beta=1, alpha=1):
    out = torch.mm(a, b)
    if alpha != 1:
        out = out * alpha
    return out + (bias if beta == 1 else bias * beta)


def _decompositions():
    """The composite ops, each decomposed by its C++ decomposition (the same
    ATen name in nsim, or a torch-only spelling of an nsim op); AOTAutograd
    meets them before the dispatcher would decompose them its own way.
    addmm is torch-only (nsim has no such op): mm, then scale and add."""
    table = {aten_op(name): _decomposition(aten_op(name), name) for name in _C.decomposed_ops()}
    table[aten.rms_norm.default] = _decomposition(aten.rms_norm.default, "aten::_fused_rms_norm", results=0)
    table[aten._softmax.default] = _decomposition(
        aten._softmax.default, "aten::softmax.int",
        lambda v: {"self": v["self"], "dim": v["dim"], "dtype": torch.float32 if v["half_to_float"] else None})
    table[aten.addmm.default] = _addmm
    return table


DECOMPOSITIONS = _decompositions()


class Unsupported(Exception):
    pass


def _op_name(target):
    s = target._schema
    name = s.name + ("." + s.overload_name if s.overload_name else "")
    return _RENAMED.get(name, name)


def _bound_args(node):
    """The node's arguments by schema name (defaults filled in)."""
    return node.target._schema, _bind(node.target, node.args, node.kwargs)


# Ops that only re-view memory: run eagerly they cost no kernel, so one that
# cannot join a fused region never becomes a region of its own.
_VIEW_OPS = {"aten::view", "aten::reshape", "aten::unsqueeze", "aten::squeeze", "aten::squeeze.dim",
             "aten::expand", "aten::transpose.int", "aten::t", "aten::permute", "aten::slice.Tensor",
             "aten::select.int", "aten::alias", "aten::_unsafe_view", "aten::as_strided"}


# Arguments that ask for what the kernel does anyway (dense, contiguous results).
_HARMLESS = {("memory_format", torch.contiguous_format), ("layout", torch.strided), ("pin_memory", False)}


def _check_args(node, name, nsim_args):
    schema, values = _bound_args(node)
    for a in schema.arguments:  # torch arguments the nsim op does not take must be absent
        v = values[a.name]
        if a.name not in nsim_args and v is not None and (a.name, v) not in _HARMLESS and not (
                a.has_default_value() and v == a.default_value):
            raise Unsupported(name, f"argument {a.name}={values[a.name]!r} is not supported")
    return values


class _Segment:
    """Consecutive FX nodes fused into one kernel."""

    def __init__(self, nodes, gm):
        self.nodes = list(nodes)
        members = set(self.nodes)
        self.inputs = []   # FX nodes read from outside, in first-use order
        self.outputs = []  # FX nodes used after the segment
        for n in self.nodes:
            for a in n.all_input_nodes:
                if a not in members and a not in self.inputs and not _scalar_constant(a):
                    self.inputs.append(a)
            if any(u not in members for u in n.users):
                self.outputs.append(n)
        # Views of the segment's inputs are taken on the tensors themselves after the kernel ran
        # (free, and laid out as eager lays them out); the kernel writes only what it computes.
        self.input_views = []
        for n in self.nodes:
            if _is_view(n) and all(a in self.inputs or a in self.input_views for a in n.all_input_nodes):
                self.input_views.append(n)
        self.kernel_outputs = [n for n in self.outputs if n not in self.input_views]

    def build(self, tensors=None):
        """The segment as an nsim compile() region, its inputs laid out as
        `tensors` (default: as FX's metadata says); raises Unsupported(op, why)."""
        b = _C.RegionBuilder()
        ids, vals = {}, {}
        for i, n in enumerate(self.inputs):
            t = n.meta.get("val") if tensors is None else tensors[i]
            vals[n] = _meta_like(t) if isinstance(t, torch.Tensor) else t
            if not isinstance(t, torch.Tensor) or t.device.type != "neuron":
                raise Unsupported(f"input {n.name}", "is not a neuron tensor")
            try:
                ids[n] = b.placeholder(n.name, tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.dtype,
                                       t.device.index or 0)
            except (NotImplementedError, ValueError) as e:  # a dtype the kernels do not compute
                raise Unsupported(f"input {n.name}", str(e)) from None
        for a in {a for n in self.nodes for a in n.all_input_nodes if _scalar_constant(a)}:
            vals[a] = torch.empty((), dtype=a.meta["val"].dtype, device="meta")
        devices = {(n.meta["val"].device.index or 0) for n in self.inputs}
        b.set_device(min(devices) if devices else 0)
        for node in self.nodes:
            if node.target is operator.getitem:
                src, i = node.args
                ids[node] = ids[src][i]
                vals[node] = vals[src][i] if isinstance(vals.get(src), (tuple, list)) else node.meta.get("val")
                continue
            if not isinstance(node.target, torch._ops.OpOverload):
                raise Unsupported(str(node.target), "is not an ATen op")
            name = _op_name(node.target)
            known, nsim_args = _C.nsim_schema_args(name)
            if not known:
                raise Unsupported(name, "has no lowering rule")
            values = _check_args(node, name, nsim_args)
            args = [_immediate(values[n], node) if _scalar_constant(values.get(n)) else
                    ("v", ids[values[n]]) if isinstance(values.get(n), torch.fx.Node) else ("c", values.get(n))
                    for n in nsim_args]
            val = self._layout(node, vals) if tensors is not None else node.meta.get("val")
            vals[node] = val
            outs = val if isinstance(val, (tuple, list)) else [val]
            try:
                res = b.call(name, args, [_meta(o) for o in outs], node.name)
            except ValueError as e:
                raise Unsupported(name, str(e)) from None
            ids[node] = res if isinstance(val, (tuple, list)) else res[0]
        b.set_outputs([ids[n] for n in self.kernel_outputs])
        return b

    @staticmethod
    def _layout(node, vals):
        """The node's result for the layouts its inputs actually have: FX's metadata describes the
        traced layouts, but an input the previous step produced may be laid out otherwise (a view
        node a kernel wrote densely), and a view's strides follow its input's."""
        if not node.all_input_nodes:
            return node.meta.get("val")
        args = torch.fx.node.map_arg(node.args, lambda n: vals[n])
        kwargs = torch.fx.node.map_arg(node.kwargs, lambda n: vals[n])
        with torch.device("meta"):
            return node.target(*args, **kwargs)


def _is_view(node):
    return isinstance(node.target, torch._ops.OpOverload) and _op_name(node.target) in _VIEW_OPS


def _partition(gm):
    """Steps in graph order: fused segments (lists of nodes) and single nodes
    run eagerly. A node joins the open segment if the segment still builds
    with it; otherwise the segment closes and the node starts a new one, or,
    if it cannot be lowered even there (or is a pure view), runs eagerly."""
    steps, seg, reasons = [], [], []

    def close():
        if seg and all(_is_view(n) for n in seg if isinstance(n.target, torch._ops.OpOverload)):
            steps.extend(("eager", n) for n in seg)  # views alone: no kernel
        elif seg:
            steps.append(("fused", list(seg)))
        seg.clear()

    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        if _scalar_constant(node):  # no inputs: runs (on the host) before the open segment, not splitting it
            steps.append(("eager", node))
            continue
        try:
            _Segment(seg + [node], gm).build()
            seg.append(node)
            continue
        except Unsupported as e:
            why = e
        close()
        if not _is_view(node):
            try:
                _Segment([node], gm).build()
                seg.append(node)
                continue
            except Unsupported as e:
                why = e
        reasons.append(why.args)
        steps.append(("eager", node))
    close()
    return steps, reasons


_region_counter = [0]


class _FusedStep:
    """One fused segment: its kernel is generated for the layout of the
    tensors it actually receives (a kernel reads its inputs through their
    strides), once per layout."""

    def __init__(self, segment):
        self.segment = segment
        self.kernels = {}

    def __call__(self, env):
        inputs = [env[n] for n in self.segment.inputs]
        key = tuple((tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.dtype, t.device) for t in inputs)
        region = self.kernels.get(key)
        if region is None:
            try:
                region = self.segment.build(inputs).compile(f"torch_compiled_region_{_region_counter[0]}")
                _region_counter[0] += 1
            except (RuntimeError, Unsupported) as e:  # a code-generator limit the lowering checks do not know
                ops = " + ".join(_op_name(n.target) for n in self.segment.nodes
                                 if isinstance(n.target, torch._ops.OpOverload))
                warnings.warn(f"torch.compile(backend='neuron'): not fused, runs eagerly: {ops} ({e})",
                              stacklevel=2)
                region = _EagerNodes(self.segment.nodes)
            self.kernels[key] = region
        if isinstance(region, _EagerNodes):
            region(env)
        else:
            outputs = region.run(inputs) if self.segment.kernel_outputs else []
            if _check_against_cpu[0]:
                _check_segment(self.segment, inputs, outputs)
            env.update(zip(self.segment.kernel_outputs, outputs))
            _EagerNodes(self.segment.input_views)(env)


_check_against_cpu = [os.environ.get(CHECK_ENV, "") not in ("", "0")]

# Fused and eager round at different points (bf16: after every eager op).
_TOLERANCE = {torch.bfloat16: (3e-2, 1e-2), torch.float16: (4e-3, 1e-3)}
_FP32_TOLERANCE = (1e-3, 1e-4)


def set_check(enabled=True):
    """Debug mode: check every fused kernel's outputs against the same ATen
    ops run on the CPU on the same inputs, raising on a difference. The
    checks copy tensors to the host, so they add copies to the timeline:
    use it for correctness, not for timing."""
    _check_against_cpu[0] = bool(enabled)


def _check_segment(segment, inputs, outputs):
    env = {n: (t.cpu() if isinstance(t, torch.Tensor) else t) for n, t in zip(segment.inputs, inputs)}
    _EagerNodes(segment.nodes, device="cpu")(env)
    for node, got in zip(segment.kernel_outputs, outputs):
        want = env[node]
        rtol, atol = _TOLERANCE.get(want.dtype, _FP32_TOLERANCE)
        got = got.cpu()
        if got.shape != want.shape or got.dtype != want.dtype or not torch.allclose(
                got.double(), want.double(), rtol=rtol, atol=atol, equal_nan=True):
            ops = " + ".join(_op_name(n.target) for n in segment.nodes if isinstance(n.target, torch._ops.OpOverload))
            err = (got.double() - want.double()).abs().max().item() if got.shape == want.shape else float("nan")
            raise RuntimeError(f"torch.compile(backend='neuron') check: the fused kernel of {ops} gives "
                               f"{tuple(got.shape)} {got.dtype} values that differ from the CPU's "
                               f"{tuple(want.shape)} {want.dtype} (max |error| {err:.3g}) for output {node.name}")


class _EagerNodes:
    def __init__(self, nodes, device=None):
        self.nodes = nodes
        self.device = device  # run factory ops (device=...) here instead

    def __call__(self, env):
        for node in self.nodes:
            a = torch.fx.node.map_arg(node.args, lambda n: env[n])
            k = torch.fx.node.map_arg(node.kwargs, lambda n: env[n])
            if self.device is not None and "device" in k:
                k = {**k, "device": self.device}
            env[node] = node.target(*a, **k)


def _compile_graph(gm, example_inputs):
    steps, reasons = _partition(gm)
    program = [_FusedStep(_Segment(what, gm)) if kind == "fused" else _EagerNodes([what]) for kind, what in steps]
    kernels = sum(isinstance(p, _FusedStep) for p in program)
    reasons = [(op, why) for op, why in reasons if op not in _VIEW_OPS]  # views run eagerly for free
    if reasons:
        warnings.warn(f"torch.compile(backend='neuron'): the graph runs as {kernels} fused kernel(s) with "
                      f"{len(program) - kernels} eager op(s) between them; not fused: " +
                      "; ".join(f"{op} ({why})" for op, why in reasons), stacklevel=2)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    output = next(n for n in gm.graph.nodes if n.op == "output")

    def run(args):
        env = dict(zip(placeholders, args))
        for step in program:
            step(env)
        return list(torch.fx.node.map_arg(output.args[0], lambda n: env[n]))

    run._boxed_call = True
    return run


def neuron_backend(gm, example_inputs):
    """The Dynamo backend registered as "neuron"."""
    return aot_module_simplified(gm, example_inputs, fw_compiler=_compile_graph, decompositions=DECOMPOSITIONS)


register_backend(name="neuron", compiler_fn=neuron_backend)
