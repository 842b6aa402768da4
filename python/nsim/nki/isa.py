"""nsim.nki.isa: NKI's `nki.isa` (nisa), one ISA instruction per call, on the engine asked for.

Both generations: NKI 0.3+ passes the destination (`nisa.tensor_copy(dst=t, src=s)`); Beta 1
returned a new tile (`t = nisa.tensor_copy(s)`). Each instruction is written once, destination
first (`_X(dst, ...)`); the Beta 1 form allocates the tile and calls it (see `_generations`).
"""
import functools
import inspect

from . import dtypes as _dt
from . import indirect as _indirect
from . import language as nl
from . import opcodes as _opcodes
from . import ops_table as _ops_table
from . import platform as _platform
from . import spmd as _spmd
from .constants import (dge_mode, dma_engine, engine, matmul_perf_mode, nc_version, oob_mode,  # noqa: F401
                        reduce_cmd)
from .errors import Unsupported, checked_calls, fail
from .program import current
from .views import HbmTensor, IndexExpr, IndexSum, Tile, View

tensor_engine, vector_engine, scalar_engine, gpsimd_engine, sync_engine = (
    engine.tensor, engine.vector, engine.scalar, engine.gpsimd, engine.sync)
unknown_engine = engine.unknown

# {nl function: ALU op / activation function}, from the simulator's tables (ops_table.py)
_ALU = {getattr(nl, name): op for name, op in nl._ALU.items()}
_COMMUTATIVE = _ops_table.commutative_alu_names()
_REDUCE = {nl.add: "sum", nl.sum: "sum", nl.maximum: "max", nl.max: "max", nl.minimum: "min", nl.min: "min",
           nl.mean: "mean"}
_ACTIVATION = {getattr(nl, name): func for name, func in nl._ACTIVATION.items()}
_ACTIVATION[nl.copy] = "identity"


def get_nc_version():
    """The NeuronCore generation of the config the kernel runs on (trn1 gen2, trn2 gen3, trn3 gen4)."""
    return _platform.nc_version(nl._info()["name"])


def _lookup(table, op, what):
    op = nl._as_nl_op(op)
    if op not in table:
        names = sorted({"nl." + f.__name__ for f in table})
        fail("%s: op %r is not supported (supported: %s)" % (what, getattr(op, "__name__", op), ", ".join(names)),
             Unsupported)
    return table[op]


def _engine(engine_, opcode, default, what):
    """The engine asked for (else `default`), if the simulator's opcode table has it run `opcode`."""
    return _opcodes.check_engine(getattr(engine_, "value", engine_) or default, opcode, what)


def _no_options(kwargs, what):
    if kwargs:
        fail("nisa.%s: options %s are not supported" % (what, ", ".join(sorted(kwargs))), Unsupported)


def _dst(dst, what):
    if not isinstance(dst, Tile):
        fail("nisa.%s: dst must be an SBUF or PSUM tile, got %r" % (what, dst))
    return dst


def _same_size(dst, src, what):
    if dst.partitions != src.partitions or dst.free_elements != src.free_elements:
        fail("nisa.%s: shapes %s (dst) and %s differ" % (what, dst.shape, src.shape))


def _call(fn, what, args, kwargs):
    """fn(*args, **kwargs); a call that does not fit the signature is the kernel's error at its line.
    The signature is bound only when the call raised a TypeError (binding costs more than a call)."""
    try:
        return fn(*args, **kwargs)
    except TypeError:
        try:
            _signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            fail("nisa.%s: %s" % (what, e))
        raise


@functools.lru_cache(maxsize=None)
def _signature(fn):
    """A function's signature, computed once: inspect.signature costs more than tracing a matmul."""
    return inspect.signature(fn)


def _binds(fn, args, kwargs):
    try:
        _signature(fn).bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def _generations(beta1_form):
    """The public instruction: the 0.3+ destination-passing form unless `beta1_form(args, kwargs)`
    says the call is Beta 1's, whose function (decorated) allocates and returns the result."""
    def wrap(beta1):
        name = beta1.__name__

        @functools.wraps(beta1)
        def instruction(*args, **kwargs):
            dst_form = _DST_FORMS[name]
            if "dst" not in kwargs and beta1_form(args):
                # A 0.3+ call with dst positional and the rest by keyword (tensor_copy(view, src=t)) looks
                # like Beta 1's by its positional arguments; the signature it binds to decides.
                if _binds(beta1, args, kwargs) or not _binds(dst_form, args, kwargs):
                    return _call(beta1, name, args, kwargs)
            return _call(dst_form, name, args, kwargs)
        instruction.nsim_generations = True  # docs/nki-api.md: "both forms"
        return instruction
    return wrap


def _is_view(args, i):
    return len(args) > i and isinstance(args[i], View)


_DST_FORMS = {}


def _dst_form(fn):
    _DST_FORMS[fn.__name__.lstrip("_")] = fn
    return fn


# ------------------------------------------------------------------ TensorE
@_dst_form
def _nc_matmul(dst, stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False,
               accumulate=None, tile_position=(), tile_size=(), perf_mode=None, name=None, mask=None):
    """dst[M, N] (+)= stationary[K, M]^T @ moving[K, N] into PSUM. accumulate=None: add into dst when its
    region was written since the tile was allocated (NKI's accumulation group), else overwrite: a
    matmul into another column block of the same tile starts its own group.
    tile_position/tile_size (PE row/column tiling) are accepted; the model runs each matmul on the
    whole array."""
    nl._no_mask(mask, "nisa.nc_matmul")
    if getattr(perf_mode, "name", "none") != "none" and perf_mode is not None:
        fail("nisa.nc_matmul(perf_mode=%s) is not modelled" % perf_mode.name, Unsupported)
    dst = _dst(dst, "nc_matmul")
    stationary, moving = nl._tile(stationary, "nc_matmul"), nl._tile(moving, "nc_matmul")
    nl._check_sbuf(stationary, "nc_matmul")
    nl._check_sbuf(moving, "nc_matmul")
    if is_transpose:
        _check_transpose_identity(stationary, moving)
    if dst.decl.space != nl.psum:
        fail("nisa.nc_matmul writes PSUM; dst is in %s" % dst.decl.space)
    result = nl._matmul(stationary, moving)
    prog = current()
    ins = prog.take_fresh(result)
    _same_size(dst, result, "nc_matmul")
    add = accumulate if accumulate is not None else dst.owner.region_written(dst)
    add = add and not prog._drop_zero_fill(dst)
    prog._retarget(ins, result, dst)
    if add:
        ins.attrs.append(("accumulate", "true"))
        ins.reads.append(dst)


@_generations(lambda a: not _is_view(a, 2))
def nc_matmul(stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False, mask=None,
              **kwargs):
    """PSUM[M, N] = stationary[K, M]^T @ moving[K, N] on TensorE (is_transpose=True: see _check_transpose_identity)."""
    nl._no_mask(mask, "nisa.nc_matmul")
    _no_options(kwargs, "nc_matmul")
    stationary, moving = _in_sbuf(stationary), _in_sbuf(moving)
    if is_transpose:
        _check_transpose_identity(stationary, moving)
    return nl._matmul(stationary, moving)


def _in_sbuf(t, what="nc_matmul"):
    """A Beta 1 operand an engine reads from SBUF only (TensorE's matmul, GpSimd's affine_select): a
    PSUM tile (an nc_transpose or matmul result) is first copied out on VectorE, the copy Beta 1's
    compiler put there."""
    t = nl._tile(t, what)
    if t.decl.space != nl.psum:
        return t
    copy = nl._new(nl._tile_shape(t), t.dtype, what + "_operand")
    nl._copy_into(copy, t)
    return copy


def _check_transpose_identity(stationary, moving):
    """nc_matmul(is_transpose=True) moves stationary[K, M] to [M, K] through the PE array with the
    [K, K] identity as moving (as NKI requires): the model runs it as the matmul it equals,
    stationary^T @ I, at the matmul's cost (moving free size K)."""
    k = stationary.partitions
    if moving.partitions != k or moving.free_elements != k:
        fail("nisa.nc_matmul(is_transpose=True): moving must be the [%d, %d] identity (stationary has %d "
             "partitions), got shape %s" % (k, k, k, moving.shape))


@_dst_form
def _nc_transpose(dst, data, engine=None, name=None, mask=None):
    """dst[F, P] = data[P, F]: on TensorE into PSUM, or engine=vector within one 32x32 block (SBUF or PSUM)."""
    nl._no_mask(mask, "nisa.nc_transpose")
    eng = _engine(engine, "transpose", "tensor", "nc_transpose")
    dst, data = _dst(dst, "nc_transpose"), nl._tile(data, "nc_transpose")
    if dst.partitions != data.free_elements or dst.free_elements != data.partitions:
        fail("nisa.nc_transpose: dst %s is not the transpose of %s" % (dst.shape, data.shape))
    if eng == "vector" and (data.partitions > 32 or data.free_elements > 32):
        fail("nisa.nc_transpose on VectorE transposes at most 32x32; data is %s" % (data.shape,))
    if eng != "vector" and dst.decl.space != nl.psum:
        fail("nisa.nc_transpose on TensorE writes PSUM; dst is in %s" % dst.decl.space)
    current().emit(eng, "transpose", dst, [data])


@_generations(lambda a: not _is_view(a, 1))
def nc_transpose(data, engine=None, mask=None, dtype=None):
    """[P, F] -> [F, P] on TensorE into PSUM, or engine=vector (at most 32x32) into SBUF."""
    nl._no_mask(mask, "nisa.nc_transpose")
    if _engine(engine, "transpose", "tensor", "nc_transpose") == "vector":
        data = nl._tile(data, "nc_transpose")
        out = nl._new((data.free_elements, data.partitions), _dt.of(dtype) or data.dtype, "vtp")
        _nc_transpose(out, data, engine=engine)
        return out
    return nl._transpose_to_psum(data, "nc_transpose")


# ------------------------------------------------------------------ ScalarE
@_dst_form
def _activation(dst, op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=None,
                name=None, mask=None):
    """dst = op(data * scale + bias); with reduce_res, the row sums of the result are written to it
    (the model's activation writes its [P, 1] accumulator), or with reduce_cmd=reduce added to what it
    holds (a VectorE add after the activation: the model's accumulator does not carry over)."""
    nl._no_mask(mask, "nisa.activation")
    dst, data = _dst(dst, "activation"), nl._tile(data, "activation")
    _same_size(dst, data, "activation")
    func = _lookup(_ACTIVATION, op, "activation")
    if reduce_op is not None and nl._as_nl_op(reduce_op) not in (nl.add, nl.sum):
        fail("activation: reduce_op must be nl.add", Unsupported)
    keep = None
    if reduce_res is not None:
        reduce_res = nl._tile(reduce_res, "activation reduce_res")
        if getattr(reduce_cmd, "name", None) == "reduce":
            keep, reduce_res = reduce_res, nl._new(nl._tile_shape(reduce_res), nl.float32, "act_sum")
        reduce_res.owner.mark_written(reduce_res)  # the activation overwrites its accumulator: nothing stale is read
    nl._activation_into(dst, func, data, scale, bias, reduce_res)
    if keep is not None:
        current().emit("vector", "tensor_tensor", keep, [keep, reduce_res], [("op", "add")])


@_generations(lambda a: not _is_view(a, 0))
def activation(op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=None, dtype=None,
               mask=None):
    """op(data * scale + bias) on ScalarE; with reduce_res=[P, 1] tile, the sums along the free axis are
    accumulated into it (reduce_op must be nl.add)."""
    nl._no_mask(mask, "nisa.activation")
    data = nl._tile(data, "activation")
    func = _lookup(_ACTIVATION, op, "activation")
    if reduce_op is not None and nl._as_nl_op(reduce_op) not in (nl.add, nl.sum):
        fail("activation: reduce_op must be nl.add", Unsupported)
    if reduce_res is not None:
        reduce_res = nl._tile(reduce_res, "activation reduce_res")
    out = nl._new(nl._tile_shape(data), _dt.of(dtype) or data.dtype, "act")
    nl._activation_into(out, func, data, scale, bias, reduce_res)
    return out


@_dst_form
def _activation_reduce(dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0, name=None, mask=None):
    """nisa.activation with the free-axis reduction of its result written to reduce_res (one ScalarE
    instruction)."""
    _activation(dst, op, data, bias=bias, scale=scale, reduce_op=reduce_op, reduce_res=reduce_res, mask=mask)


@_generations(lambda a: not _is_view(a, 0))
def activation_reduce(op, data, reduce_op, reduce_res, bias=None, scale=1.0, dtype=None, mask=None):
    data = nl._tile(data, "activation_reduce")
    out = nl._new(nl._tile_shape(data), _dt.of(dtype) or data.dtype, "act")
    _activation_reduce(out, op, data, reduce_op, reduce_res, bias, scale, mask=mask)
    return out


@_dst_form
def _reciprocal(dst, data, name=None, mask=None):
    """dst = 1 / data, as the ScalarE activation function `reciprocal`."""
    _activation(dst, nl.reciprocal, data, mask=mask)


@_generations(lambda a: not _is_view(a, 1))
def reciprocal(data, dtype=None, mask=None):
    data = nl._tile(data, "reciprocal")
    out = nl._new(nl._tile_shape(data), _dt.of(dtype) or data.dtype, "recip")
    _reciprocal(out, data, mask=mask)
    return out


# ------------------------------------------------------------------ VectorE / GpSimd
@_dst_form
def _tensor_tensor(dst, data1, data2, op, engine=None, name=None, mask=None):
    """dst = data1 op data2 element-wise on VectorE."""
    nl._no_mask(mask, "nisa.tensor_tensor")
    engine = _engine(engine, "tensor_tensor", "vector", "tensor_tensor")
    dst = _dst(dst, "tensor_tensor")
    a, b = nl._tile(data1, "tensor_tensor"), nl._tile(data2, "tensor_tensor")
    _same_size(dst, a, "tensor_tensor")
    _same_size(dst, b, "tensor_tensor")
    current().emit(engine, "tensor_tensor", dst, [a, b], [("op", _lookup(_ALU, op, "tensor_tensor"))])


@_generations(lambda a: not _is_view(a, 2))
def tensor_tensor(data1, data2, op, dtype=None, engine=None, mask=None):
    a = nl._tile(data1, "tensor_tensor")
    out = nl._new(nl._tile_shape(a), _dt.of(dtype) or _dt.result_type(a.dtype, nl._tile(data2, "tensor_tensor").dtype),
                  "tt")
    _tensor_tensor(out, data1, data2, op, engine=engine, mask=mask)
    return out


def _scalar_operand(x, like, what="tensor_scalar operand"):
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    x = nl._tile(x, what)
    if x.partitions != like.partitions or x.free_elements != 1:
        fail("%s must be a number or a [%d, 1] column, got %s" % (what, like.partitions, x.shape))
    return x


# A comparison with its operands swapped is its mirror (`s > x` is `x < s`).
_MIRRORED = {"greater": "less", "less": "greater", "greater_equal": "less_equal", "less_equal": "greater_equal"}
_ALU_NAMES = {row["name"] for row in _ops_table.alu_ops()}


def _reversed(alu, what):
    """The ALU op computing `b alu a`: the op itself when commutative, a comparison's mirror, else the
    simulator's reversed row (rsubtract, rdivide, ...: NKI's reverse0=/reverse1= flags)."""
    if alu in _COMMUTATIVE:
        return alu
    if alu in _MIRRORED:
        return _MIRRORED[alu]
    if "r" + alu in _ALU_NAMES:
        return "r" + alu
    fail("%s: reverse operands with %s are not modelled" % (what, alu), Unsupported)


def _scalar_op(op, operand, reverse, data, what):
    """(op, operand) attributes; reverse computes `operand op data`."""
    alu = _lookup(_ALU, op, what)
    return (_reversed(alu, what) if reverse else alu), _scalar_operand(operand, data)


@_dst_form
def _tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False, engine=None,
                   name=None, mask=None):
    """dst = (data op0 operand0) op1 operand1 on VectorE (or GpSimd); operands are numbers or [P, 1] columns."""
    nl._no_mask(mask, "nisa.tensor_scalar")
    engine = _engine(engine, "tensor_scalar", "vector", "tensor_scalar")
    dst, data = _dst(dst, "tensor_scalar"), nl._tile(data, "tensor_scalar")
    _same_size(dst, data, "tensor_scalar")
    alu0, s0 = _scalar_op(op0, operand0, reverse0, data, "tensor_scalar")
    attrs = [("op0", alu0), ("scalar0", s0)]
    if op1 is not None:
        alu1, s1 = _scalar_op(op1, operand1, reverse1, data, "tensor_scalar")
        attrs += [("op1", alu1), ("scalar1", s1)]
    current().emit(engine, "tensor_scalar", dst, [data], attrs)


@_generations(lambda a: not _is_view(a, 1))
def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False, dtype=None,
                  engine=None, mask=None):
    data = nl._tile(data, "tensor_scalar")
    out = nl._new(nl._tile_shape(data), _dt.of(dtype) or data.dtype, "ts")
    _tensor_scalar(out, data, op0, operand0, reverse0, op1, operand1, reverse1, engine=engine, mask=mask)
    return out


@_dst_form
def _tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, name=None, mask=None):
    """dst = the reduction of data over free axes, on VectorE."""
    nl._no_mask(mask, "nisa.tensor_reduce")
    dst, data = _dst(dst, "tensor_reduce"), nl._tile(data, "tensor_reduce")
    src, kept, _ = nl._reduce_view(data, axis, "tensor_reduce")
    if dst.partitions != data.partitions or dst.free_elements != _free_elements(kept, data.pdim):
        fail("nisa.tensor_reduce: dst %s does not hold the reduction of %s over axis %r" % (dst.shape, data.shape, axis))
    current().emit("vector", "tensor_reduce", dst, [src],
                   [("op", _lookup(_REDUCE, op, "tensor_reduce"))] + ([("negate", "true")] if negate else []))


def _free_elements(dims, pdim):
    n = 1
    for i, (_, size) in enumerate(dims):
        n *= size if i != pdim else 1
    return n


@_generations(lambda a: not _is_view(a, 0))
def tensor_reduce(op, data, axis, dtype=None, keepdims=False, negate=False, mask=None):
    nl._no_mask(mask, "nisa.tensor_reduce")
    return nl._reduce(_lookup(_REDUCE, op, "tensor_reduce"), data, axis, dtype, keepdims, "tensor_reduce",
                      negate=negate)


@_dst_form
def _tensor_partition_reduce(dst, op, data, name=None, mask=None):
    """dst[0] = the reduction of data over its partitions, on GpSimd (opcode partition_reduce)."""
    nl._no_mask(mask, "nisa.tensor_partition_reduce")
    dst, data = _dst(dst, "tensor_partition_reduce"), nl._tile(data, "tensor_partition_reduce")
    red = _lookup(_REDUCE, op, "tensor_partition_reduce")
    if red == "mean":
        fail("tensor_partition_reduce(op=nl.mean) is not modelled", Unsupported)
    if dst.free_elements != data.free_elements:
        fail("nisa.tensor_partition_reduce: dst %s and data %s differ in free size" % (dst.shape, data.shape))
    current().emit("gpsimd", "partition_reduce", dst, [data], [("op", red)])


@_generations(lambda a: not _is_view(a, 0))
def tensor_partition_reduce(op, data, dtype=None, mask=None):
    data = nl._tile(data, "tensor_partition_reduce")
    out = nl._new((1,) + nl._tile_shape(data)[1:], _dt.of(dtype) or data.dtype, "preduce")
    _tensor_partition_reduce(out, op, data, mask=mask)
    return out


@_dst_form
def _tensor_copy(dst, src, engine=None, name=None, mask=None, dtype=None):
    """dst = src cast to dst's dtype, on VectorE (or GpSimd, ScalarE)."""
    nl._no_mask(mask, "nisa.tensor_copy")
    engine = _engine(engine, "tensor_copy", "vector", "tensor_copy")
    dst, src = _dst(dst, "tensor_copy"), nl._tile(src, "tensor_copy")
    _same_size(dst, src, "tensor_copy")
    current().emit(engine, "tensor_copy", dst, [src])


@_generations(lambda a: not _is_view(a, 1))
def tensor_copy(src, dtype=None, engine=None, mask=None):
    src = nl._tile(src, "tensor_copy")
    out = nl._new(nl._tile_shape(src), _dt.of(dtype) or src.dtype, "copy")
    _tensor_copy(out, src, engine=engine, mask=mask)
    return out


@_dst_form
def _memset(dst, value, engine=None, name=None, mask=None, dtype=None):
    """dst = value everywhere, on VectorE (or GpSimd)."""
    nl._no_mask(mask, "nisa.memset")
    engine = _engine(engine, "memset", "vector", "memset")
    dst = _dst(dst, "memset")
    ins = current().emit(engine, "memset", dst, [], [("value", nl._fill_value(value, "nisa.memset"))])
    if dst.decl.space == nl.psum and ins.attrs[0][1] == 0 and dst.offset == 0 and dst.dims == dst.owner.dims:
        current().zero_filled(dst.owner, ins)


@_generations(lambda a: not _is_view(a, 0))
def memset(shape, value, dtype, engine=None, mask=None):
    out = nl._new(shape, _dt.of(dtype), "memset")
    _memset(out, value, engine=engine, mask=mask)
    return out


def _iota_dims(pattern, dst, what):
    """[(step, n)] of an iota pattern [[step, n], ...], checked against dst's elements per partition."""
    try:
        dims = [(int(s), int(n)) for s, n in pattern]
    except (TypeError, ValueError):
        dims = None
    if not dims or any(n <= 0 for _, n in dims):
        fail("nisa.%s(pattern=%r): a list of [step, size] pairs" % (what, pattern))
    if dst.free_elements != _free_elements([[0, n] for _, n in dims], None):
        fail("nisa.%s: pattern %r has %d elements per partition, dst %s" % (what, pattern, _free_elements(
            [[0, n] for _, n in dims], None), dst.shape))
    return dims


def _nests(dims):
    return all(outer == inner * n for (outer, _), (inner, n) in zip(dims, dims[1:]))


def _iota_step(pattern, dst, what):
    """The one free step of an iota pattern [[step, n], ...] whose dims nest row-major, checked against dst."""
    dims = _iota_dims(pattern, dst, what)
    if not _nests(dims):
        fail("nisa.%s(pattern=%r): only patterns with one free step are modelled" % (what, pattern), Unsupported)
    return dims[-1][0]


@_dst_form
def _iota(dst, pattern, offset=0, channel_multiplier=0, name=None, mask=None):
    """dst[p, i...] = offset + p * channel_multiplier + sum(i_k * step_k) for pattern [[step, n], ...]:
    one GpSimd iota when the dims nest row-major; else one over the dims of non-zero step (they must
    nest) and a GpSimd copy repeating it over the step-0 dims ([[0, 40], [1353, 3]]: cascaded_max)."""
    nl._no_mask(mask, "nisa.iota")
    dst = _dst(dst, "iota")
    dims = _iota_dims(pattern, dst, "iota")
    if _nests(dims):
        current().emit("gpsimd", "iota", dst, [], [("base", offset), ("partition_step", channel_multiplier),
                                                   ("free_step", dims[-1][0])])
        return
    shape, steps = [dst.partitions] + [n for _, n in dims], [channel_multiplier] + [s for s, _ in dims]
    current().emit("gpsimd", "tensor_copy", dst, [_iota_broadcast(shape, steps, offset, _dt.float32)])


@_generations(lambda a: not _is_view(a, 0))
def iota(expr, dtype, mask=None):
    """GpSimd: a tile holding expr = base + sum(step_k * i_k), from nl.arange expressions placed on the
    partition ([:, None]) and free ([None, :]) axes, or from the dims of an nl.mgrid (its dense shape:
    nisa.iota(3 * w.y + w.z) of w = nl.mgrid[0:P, 0:A, 0:3, 0:3] is [P, A, 3, 3])."""
    nl._no_mask(mask, "nisa.iota")
    terms = expr.terms if isinstance(expr, IndexSum) else [expr]
    if not all(isinstance(t, IndexExpr) and t.axis is not None for t in terms):
        fail("nisa.iota takes index expressions placed on axes (nl.arange(P)[:, None], nl.arange(F)[None, :], "
             "nl.mgrid dims), got %r" % (expr,))
    shape = _iota_shape(terms)
    steps = [0] * len(shape)
    for t in terms:
        steps[t.axis] += t.step
    base = sum(t.start for t in terms) + (expr.const if isinstance(expr, IndexSum) else 0)
    return _iota_broadcast(shape, steps, base, _dt.of(dtype))


def _iota_shape(terms):
    """The dense shape of the grid the terms index (arange terms: each axis' size, 1 where none)."""
    grids = {t.grid for t in terms if t.grid is not None}
    if len(grids) > 1:
        fail("nisa.iota: the index expressions come from different nl.mgrid grids %s" % sorted(grids))
    ndim = max([len(g) for g in grids] + [2] + [t.axis + 1 for t in terms])
    shape = list(next(iter(grids))) if grids else [1] * ndim
    for t in terms:
        if t.axis >= len(shape) or (grids and shape[t.axis] != t.size):
            fail("nisa.iota: index expression %r does not fit the grid %s" % (t, tuple(shape)))
        if not grids:
            if shape[t.axis] not in (1, t.size):
                fail("nisa.iota: two index expressions of different sizes on axis %d" % t.axis)
            shape[t.axis] = t.size
    return shape


def _iota_broadcast(shape, steps, base, dtype):
    """One iota over the free dims whose step is not 0 (they must nest row-major, as the opcode's one
    free step walks them); the dims of step 0 repeat it (a stride-0 view of that tile)."""
    kept = [k for k in range(1, len(shape)) if steps[k] != 0 and shape[k] > 1]
    for outer, inner in zip(kept, kept[1:]):
        if steps[outer] != steps[inner] * shape[inner] or any(shape[k] > 1 for k in range(outer + 1, inner)):
            fail("nisa.iota: steps %s over shape %s do not nest (each free dim's step the next one's times "
                 "its size): not one iota" % (steps[1:], tuple(shape)), Unsupported)
    out = nl._new([shape[0]] + [shape[k] if k in kept else 1 for k in range(1, len(shape))], dtype, "iota")
    current().emit("gpsimd", "iota", out, [], [("base", base), ("partition_step", steps[0]),
                                               ("free_step", steps[kept[-1]] if kept else 0)])
    if out.shape == tuple(shape):
        return out
    dims = [d if k == 0 or k in kept else [0, shape[k]] for k, d in enumerate(out.dims)]
    return Tile(out.decl, out.offset, dims, 0, out.owner)


@_dst_form
def _tensor_tensor_scan(dst, data0, data1, initial, op0, op1, reverse0=False, reverse1=False, name=None,
                        mask=None):
    """A scan along the free axis on VectorE, one chain per partition:
    dst[:, i] = op1(op0(data0[:, i], dst[:, i-1]), data1[:, i]), dst[:, -1] = initial
    (a number or a [P, 1] column). The carried value stays fp32 inside the engine."""
    nl._no_mask(mask, "nisa.tensor_tensor_scan")
    if reverse0 or reverse1:
        fail("tensor_tensor_scan reverse operands are not supported", Unsupported)
    dst = _dst(dst, "tensor_tensor_scan")
    a, b = nl._tile(data0, "tensor_tensor_scan"), nl._tile(data1, "tensor_tensor_scan")
    _same_size(dst, a, "tensor_tensor_scan")
    _same_size(dst, b, "tensor_tensor_scan")
    attrs = [("op0", _lookup(_ALU, op0, "tensor_tensor_scan")), ("op1", _lookup(_ALU, op1, "tensor_tensor_scan")),
             ("initial", _scalar_operand(initial, a, "tensor_tensor_scan initial"))]
    current().emit("vector", "tensor_tensor_scan", dst, [a, b], attrs)


@_generations(lambda a: len(a) < 6 and (len(a) < 4 or callable(a[3])))
def tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0=False, reverse1=False, dtype=None, mask=None,
                       **kwargs):
    _no_options(kwargs, "tensor_tensor_scan")
    a, b = nl._tile(data0, "tensor_tensor_scan"), nl._tile(data1, "tensor_tensor_scan")
    out = nl._new(nl._tile_shape(a), _dt.of(dtype) or _dt.result_type(a.dtype, b.dtype), "scan")
    _tensor_tensor_scan(out, a, b, initial, op0, op1, reverse0, reverse1, mask=mask)
    return out


# ------------------------------------------------------------------ DMA
_DMA_ACCEPTED = ("dge_mode", "oob_mode", "name", "dma_engine")


def dma_copy(dst, src, queue=None, engine=None, mask=None, dst_rmw_op=None, **kwargs):
    """A DMA between HBM, SBUF and PSUM on `queue` (default: the frontend's rotation), triggered from
    `engine` (default: the producer of an on-chip source, else Sync). dge_mode=, name= and dma_engine= are
    accepted (one DMA path); static access patterns are checked when traced. A side viewed with
    .ap(scalar_offset=/vector_offset=) becomes a dma_indirect: its HBM address is read from SBUF when the
    transfer runs, oob_mode=skip skipping a row outside the tensor (else an error at the kernel's line)."""
    nl._no_mask(mask, "nisa.dma_copy")
    _no_options({k: v for k, v in kwargs.items() if k not in _DMA_ACCEPTED}, "dma_copy")
    if dst_rmw_op is not None:
        fail("nisa.dma_copy(dst_rmw_op=...): read-modify-write DMA is not modelled", Unsupported)
    for v, what in ((dst, "dst"), (src, "src")):
        if not isinstance(v, (HbmTensor, Tile)):
            fail("dma_copy %s must be a tensor or tile, got %r" % (what, v))
    if dst.num_elements != src.num_elements:
        fail("dma_copy: dst has %d elements, src %d" % (dst.num_elements, src.num_elements))
    prog = current()
    engine_given = engine is not None
    engine = _engine(engine, "dma_copy", prog.dma_engine(src), "dma_copy")
    if queue is not None and (isinstance(queue, bool) or not isinstance(queue, int)):  # the range: the simulator's
        fail("dma_copy: queue=%r must be an integer (a DMA queue of the config)" % (queue,))
    attrs = [("queue", int(queue))] if queue is not None else []
    if _indirect.of(dst) is not None or _indirect.of(src) is not None:  # .ap(scalar_offset=/vector_offset=)
        ins = _indirect.emit_dma(prog, engine, dst, src, kwargs.get("oob_mode"), attrs)
    else:
        ins = prog.emit(engine, "dma_copy", dst, [src], attrs)
    ins.placed_by_kernel = queue is not None or engine_given  # the dma_queues pass keeps it


_TRANSPOSE_AXES = {2: (1, 0), 3: (2, 1, 0), 4: (3, 1, 2, 0)}  # the permutation by rank (nki.isa.dma_transpose)


@_dst_form
def _dma_transpose(dst, src, axes=None, priority=None, dge_mode=None, oob_mode=None, name=None, mask=None,
                   engine=None):
    """dst = src transposed by a DMA (2-d: (1, 0), 3-d: (2, 1, 0), 4-d: (3, 1, 2, 0), or axes=) from HBM or
    SBUF into SBUF; 2- and 4-byte types. From HBM the model copies src's permuted view at
    dma.transpose_from_hbm of a copy's throughput (S2: up to 90 %); from SBUF (the partition dim moves,
    which no access pattern expresses) it passes src as is and the DMA swaps its first and last dims (every
    permutation here swaps those), at dma.transpose_from_sbuf (S2: up to 50 %)."""
    what = "dma_transpose"
    nl._no_mask(mask, "nisa." + what)
    dst = _dst(dst, what)
    order = _transpose_order(src, axes)
    shape = tuple(src.shape[i] for i in order)
    if shape != tuple(dst.shape):
        fail("nisa.%s: dst %s is not src %s transposed by %s (%s)" % (what, dst.shape, src.shape, order, shape))
    view = src.permute(order) if isinstance(src, HbmTensor) else src
    prog = current()
    engine = _engine(engine, what, prog.dma_engine(src), what)
    prog.emit(engine, what, dst, [view])


def _transpose_order(src, axes, what="dma_transpose"):
    """The permutation dma_transpose applies to src (an HBM tensor): axes=, else the one for src's rank."""
    if _indirect.of(src) is not None:
        fail("nisa.%s from a runtime-addressed view (.ap(vector_offset=/scalar_offset=)) is not modelled" % what,
             Unsupported)
    if isinstance(src, Tile) and (src.decl.space != "sbuf" or src.pdim != 0):
        fail("nisa.%s: an on-chip src must be an SBUF tile whose partition dim is its first (got %s)"
             % (what, src._what()), Unsupported)
    if not isinstance(src, (HbmTensor, Tile)):
        fail("nisa.%s: src must be an HBM tensor or SBUF tile, got %r" % (what, src))
    try:
        order = tuple(axes) if axes is not None else _TRANSPOSE_AXES.get(len(src.shape))
    except TypeError:
        order = None
    if order is None or order not in _TRANSPOSE_AXES.values():
        fail("nisa.%s: axes %r of a %d-d src are not one of %s" % (what, axes, len(src.shape),
                                                                  sorted(_TRANSPOSE_AXES.values())))
    if len(order) != len(src.shape):
        fail("nisa.%s: axes %s do not match the %d dims of src %s" % (what, order, len(src.shape), src.shape))
    return order


@_generations(lambda a: len(a) <= 1 and not (a and isinstance(a[0], Tile)))  # Beta 1: src only, no dst
def dma_transpose(src, axes=None, dtype=None, mask=None, dge_mode=None, **kwargs):
    """Beta 1: returns a new SBUF tile holding src transposed."""
    shape = tuple(src.shape[i] for i in _transpose_order(src, axes))
    out = nl._new(shape, _dt.of(dtype) or src.dtype, "dmaT")
    _dma_transpose(out, src, axes=axes, mask=mask)
    return out


# ------------------------------------------------------------------ fused and selection instructions
@_dst_form
def _scalar_tensor_tensor(dst, data, op0, operand0, op1, operand1, reverse0=False, reverse1=False, engine=None,
                          name=None, mask=None):
    """dst = (data op0 operand0) op1 operand1 on VectorE (or GpSimd): operand0 a number or [P, 1] column,
    operand1 a tile of data's shape."""
    what = "scalar_tensor_tensor"
    nl._no_mask(mask, "nisa." + what)
    engine = _engine(engine, what, "vector", what)
    dst, data, data1 = _dst(dst, what), nl._tile(data, what), nl._tile(operand1, what + " operand1")
    _same_size(dst, data, what)
    _same_size(dst, data1, what)
    alu0, s0 = _scalar_op(op0, operand0, reverse0, data, what)
    alu1 = _lookup(_ALU, op1, what)
    if reverse1:
        alu1 = _reversed(alu1, what)  # operand1 op1 (data op0 operand0)
    current().emit(engine, what, dst, [data, data1], [("op0", alu0), ("scalar0", s0), ("op1", alu1)])


@_generations(lambda a: not _is_view(a, 1))
def scalar_tensor_tensor(data, op0, operand0, op1, operand1, reverse0=False, reverse1=False, dtype=None,
                         engine=None, mask=None):
    data = nl._tile(data, "scalar_tensor_tensor")
    out = nl._new(nl._tile_shape(data), _dt.of(dtype) or data.dtype, "stt")
    _scalar_tensor_tensor(out, data, op0, operand0, op1, operand1, reverse0, reverse1, engine=engine, mask=mask)
    return out


@_dst_form
def _tensor_scalar_reduce(dst, data, op0, operand0, reduce_op, reduce_res, reverse0=False, engine=None, name=None,
                          mask=None):
    """dst = data op0 operand0, and reduce_res[P, 1] = its reduce_op (add, max, min) along the free axes,
    in one VectorE instruction."""
    what = "tensor_scalar_reduce"
    nl._no_mask(mask, "nisa." + what)
    engine = _engine(engine, what, "vector", what)
    dst, data = _dst(dst, what), nl._tile(data, what)
    _same_size(dst, data, what)
    alu0, s0 = _scalar_op(op0, operand0, reverse0, data, what)
    reduce = _lookup(_REDUCE, reduce_op, what + " reduce_op")
    if reduce == "mean":
        fail("%s: reduce_op must be nl.add, nl.maximum or nl.minimum" % what)
    acc = _dst(reduce_res, what + " reduce_res")
    current().emit(engine, what, dst, [data], [("op0", alu0), ("scalar0", s0), ("reduce", reduce), ("acc", acc)],
                   writes=[acc], write_only=("acc",))


@_generations(lambda a: not _is_view(a, 1))
def tensor_scalar_reduce(data, op0, operand0, reduce_op, reduce_res, reverse0=False, dtype=None, mask=None):
    data = nl._tile(data, "tensor_scalar_reduce")
    out = nl._new(nl._tile_shape(data), _dt.of(dtype) or data.dtype, "tsr")
    _tensor_scalar_reduce(out, data, op0, operand0, reduce_op, reduce_res, reverse0, mask=mask)
    return out


def tensor_copy_predicated(dst, src, predicate, reverse_pred=False, engine=None, name=None, mask=None, dtype=None):
    """dst[i] = src[i] where predicate[i] is non-zero (dst keeps its other elements), on VectorE. Beta 1
    and 0.3+ both pass dst."""
    what = "tensor_copy_predicated"
    nl._no_mask(mask, "nisa." + what)
    if reverse_pred:
        fail("%s(reverse_pred=True) is not modelled" % what, Unsupported)
    engine = _engine(engine, what, "vector", what)
    dst, src, pred = _dst(dst, what), nl._tile(src, what), nl._tile(predicate, what + " predicate")
    _same_size(dst, src, what)
    _same_size(dst, pred, what)
    current().emit(engine, what, dst, [src, pred])


@_dst_form
def _max8(dst, src, name=None, mask=None):
    """dst[P, 8] = the 8 largest values of each partition of src, largest first (VectorE)."""
    nl._no_mask(mask, "nisa.max8")
    dst, src = _dst(dst, "max8"), nl._tile(src, "max8")
    current().emit("vector", "max8", dst, [src])


@_generations(lambda a: not _is_view(a, 1))
def max8(src, dtype=None, mask=None):
    src = nl._tile(src, "max8")
    out = nl._new((src.partitions, 8), _dt.of(dtype) or src.dtype, "max8")
    _max8(out, src, mask=mask)
    return out


@_dst_form
def _nc_find_index8(dst, data, vals, name=None, mask=None):
    """dst[P, 8] = the index in each partition's data row of each of vals[P, 8] (its first match; VectorE)."""
    nl._no_mask(mask, "nisa.nc_find_index8")
    dst, data, vals = _dst(dst, "nc_find_index8"), nl._tile(data, "nc_find_index8"), nl._tile(vals, "nc_find_index8")
    current().emit("vector", "nc_find_index8", dst, [data, vals])


@_generations(lambda a: not _is_view(a, 2))
def nc_find_index8(data, vals, dtype=None, mask=None):
    data = nl._tile(data, "nc_find_index8")
    out = nl._new((data.partitions, 8), _dt.of(dtype) or _dt.int32, "idx8")
    _nc_find_index8(out, data, vals, mask=mask)
    return out


@_dst_form
def _nc_match_replace8(dst, data, vals, imm, dst_idx=None, name=None, mask=None):
    """dst = data with the first match of each of vals[P, 8] replaced by imm (VectorE); dst_idx[P, 8], when
    given, gets the matched positions (vals taken from the last: duplicates pair with descending positions)."""
    what = "nc_match_replace8"
    nl._no_mask(mask, "nisa." + what)
    dst, data, vals = _dst(dst, what), nl._tile(data, what), nl._tile(vals, what + " vals")
    _same_size(dst, data, what)
    if not nl._number(imm):
        fail("nisa.%s: imm must be a number, got %r" % (what, imm))
    attrs, writes = [("imm", float(imm))], []
    if dst_idx is not None:
        idx = _dst(dst_idx, what + " dst_idx")
        attrs, writes = attrs + [("idx", idx)], [idx]
    current().emit("vector", what, dst, [data, vals], attrs, writes=writes, write_only=("idx",))


@_generations(lambda a: not a)  # Beta 1's form is keyword-only and has no dst
def nc_match_replace8(data, vals, imm, dst_idx=None, dtype=None, mask=None):
    data = nl._tile(data, "nc_match_replace8")
    out = nl._new(nl._tile_shape(data), _dt.of(dtype) or data.dtype, "mr8")
    _nc_match_replace8(out, data, vals, imm, dst_idx=dst_idx, mask=mask)
    return out


def nonzero_with_count(dst, src, index_offset=0, padding_val=-1, name=None):
    """On GpSimd, partitions 0, 16, ..., 112 only (each core's 0-th): dst[p, :T] = the positions of src[p]'s
    non-zero elements + index_offset, then padding_val; dst[p, T] = their count. Other partitions of dst keep
    their values. NeuronCore-v3 and newer (trn2, trn3)."""
    what = "nonzero_with_count"
    if get_nc_version() < nc_version.gen3:
        fail("nisa.%s needs NeuronCore-v3 or newer (trn2, trn3); the kernel runs on %s" % (what, nl._info()["name"]))
    dst, src = _dst(dst, what), nl._tile(src, what)
    for x, role in ((index_offset, "index_offset"), (padding_val, "padding_val")):
        if not nl._number(x):
            fail("nisa.%s: %s must be a number, got %r" % (what, role, x))
    current().emit("gpsimd", what, dst, [src], [("base", index_offset), ("padding", float(padding_val))])


def nc_n_gather(dst, data, indices, name=None):
    """dst[p, j] = data[p, indices[p, j]] on GpSimd, data's free dims flattened; all three in SBUF, indices
    uint32. An index outside data's row is an error at the call (hardware returns garbage)."""
    what = "nc_n_gather"
    dst, data, idx = _dst(dst, what), nl._tile(data, what), nl._tile(indices, what + " indices")
    _same_size(dst, idx, what)
    current().emit("gpsimd", what, dst, [data, idx])


_SHUFFLE_KEEP = 255  # shuffle_mask value: the dst partition is unmodified


def _affine_mask(mask, what):
    """(from, step, first, count) of a 32-entry shuffle mask that is from + j * step for the entries
    first <= j < first + count and 255 elsewhere: the masks the model takes (broadcast [0] * 32, shifts,
    [16] + [255] * 31, a window [255] * 5 + [0..9] + [255] * 17)."""
    if not isinstance(mask, (list, tuple)) or len(mask) != 32 or not all(nl._number(m) for m in mask):
        fail("nisa.%s: shuffle_mask must be a list of 32 integers, got %r" % (what, mask))
    mask = [int(m) for m in mask]
    if any(not (0 <= m < 32 or m == _SHUFFLE_KEEP) for m in mask):
        fail("nisa.%s: shuffle_mask entries must be 0..31 or 255, got %s" % (what, mask))
    lanes = [j for j, m in enumerate(mask) if m != _SHUFFLE_KEEP]
    if not lanes:
        return 0, 0, 0, 0
    first, count = lanes[0], lanes[-1] + 1 - lanes[0]
    step = mask[first + 1] - mask[first] if count > 1 else 0
    start = mask[first] - first * step
    if any(mask[j] != start + j * step for j in range(first, first + count)):
        fail("nisa.%s: shuffle_mask %s is not modelled (the model takes from + j * step on one window of "
             "entries, 255 elsewhere)" % (what, mask), Unsupported)
    return start, step, first, count


def nc_stream_shuffle(dst=None, src=None, shuffle_mask=None, name=None, mask=None, dtype=None):
    """Per 32-partition quadrant on VectorE, dst partition j copies src partition shuffle_mask[j] of the same
    quadrant (255: dst keeps it). Masks from + j * step on one window of entries, 255 elsewhere, are modelled. Beta 1 and
    0.3+ both pass dst."""
    what = "nc_stream_shuffle"
    nl._no_mask(mask, "nisa." + what)
    dst, src = _dst(dst, what), nl._tile(src, what)
    if dst.free_elements != src.free_elements:
        fail("nisa.%s: dst %s and src %s differ in elements per partition" % (what, dst.shape, src.shape))
    start, step, first, count = _affine_mask(shuffle_mask, what)
    current().emit("vector", what, dst, [src], [("from", start), ("step", step), ("first", first), ("count", count)])


_FLOAT32_MIN = -3.4028234663852886e38  # Beta 1's on_false_value default (nl.fp32.min)


@_dst_form
def _range_select(dst, on_true_tile, comp_op0, comp_op1, bound0, bound1, reduce_cmd=None, reduce_res=None,
                  reduce_op=nl.maximum, range_start=0, on_false_value=0.0, name=None, mask=None):
    """dst[p, i] = on_true_tile[p, i] where (i + range_start) comp_op0 bound0[p] and (i + range_start) comp_op1
    bound1[p], else on_false_value (VectorE, NeuronCore-v3+); reduce_res[P, 1], when given, gets reduce_op
    of each result row (reduce_cmd reset_reduce; reduce adds a VectorE op into what it holds)."""
    what = "range_select"
    nl._no_mask(mask, "nisa." + what)
    if get_nc_version() < nc_version.gen3:
        fail("nisa.%s needs NeuronCore-v3 or newer (trn2, trn3); the kernel runs on %s" % (what, nl._info()["name"]))
    dst, data = _dst(dst, what), nl._tile(on_true_tile, what + " on_true_tile")
    _same_size(dst, data, what)
    ops = [_lookup(_ALU, op, what + " comp_op") for op in (comp_op0, comp_op1)]
    bounds = [_scalar_operand(b, data, what + " bound") for b in (bound0, bound1)]
    for x, role in ((range_start, "range_start"), (on_false_value, "on_false_value")):
        if not nl._number(x):
            fail("nisa.%s: %s must be a number, got %r" % (what, role, x))
    attrs = [("op0", ops[0]), ("bound0", bounds[0]), ("op1", ops[1]), ("bound1", bounds[1]),
             ("value", float(on_false_value)), ("start", range_start)]
    keep, acc = _select_reduce_target(reduce_res, reduce_cmd, what)
    if acc is not None:
        reduce = _lookup(_REDUCE, reduce_op, what + " reduce_op")
        if reduce == "mean":
            fail("nisa.%s: reduce_op must be nl.maximum, nl.minimum or nl.add" % what)
        attrs += [("reduce", reduce), ("acc", acc)]
    current().emit("vector", what, dst, [data], attrs, writes=[acc] if acc is not None else [], write_only=("acc",))
    if keep is not None:  # reduce_cmd=reduce: the model's accumulator does not carry over, so fold it in
        current().emit("vector", "tensor_tensor", keep, [keep, acc], [("op", {"sum": "add"}.get(reduce, reduce))])


def _select_reduce_target(reduce_res, cmd, what):
    """(tile to fold into or None, [P, 1] tile the instruction writes or None) for reduce_res/reduce_cmd."""
    if reduce_res is None:
        return None, None
    acc = _dst(reduce_res, what + " reduce_res")
    name = getattr(cmd, "name", "reset_reduce")
    if name == "reset_reduce":
        return None, acc
    if name == "reduce":
        return acc, nl._new(nl._tile_shape(acc), nl.float32, what + "_red")
    fail("nisa.%s: reduce_cmd=%s with reduce_res is not modelled (reset_reduce and reduce are)" % (what, name),
         Unsupported)


@_generations(lambda a: not a)  # Beta 1's form is keyword-only and has no dst
def range_select(on_true_tile, comp_op0, comp_op1, bound0, bound1, reduce_cmd=None, reduce_res=None,
                 reduce_op=nl.maximum, range_start=0, on_false_value=_FLOAT32_MIN, dtype=None, mask=None):
    data = nl._tile(on_true_tile, "range_select")
    out = nl._new(nl._tile_shape(data), _dt.of(dtype) or data.dtype, "rsel")
    _range_select(out, data, comp_op0, comp_op1, bound0, bound1, reduce_cmd=reduce_cmd, reduce_res=reduce_res,
                  reduce_op=reduce_op, range_start=range_start, on_false_value=on_false_value, mask=mask)
    return out


@_dst_form
def _affine_select(dst, pattern, offset=0, channel_multiplier=0, on_true_tile=None, on_false_value=None, cmp_op=None,
                   name=None, mask=None):
    """dst[p, i] = on_true_tile[p, i] where (offset + p * channel_multiplier + the pattern's index sum) cmp_op 0
    (default nl.greater_equal), else on_false_value; on GpSimd. offset and channel_multiplier default to 0
    (the NKI Library's cascaded_max gives no offset)."""
    what = "affine_select"
    if on_true_tile is None or on_false_value is None:
        fail("nisa.affine_select: on_true_tile= and on_false_value= are required")
    nl._no_mask(mask, "nisa." + what)
    dst, data = _dst(dst, what), nl._tile(on_true_tile, what + " on_true_tile")
    _same_size(dst, data, what)
    step = _iota_step(pattern, dst, what)
    cmp = _lookup(_ALU, cmp_op if cmp_op is not None else nl.greater_equal, what + " cmp_op")
    if not nl._number(on_false_value):
        fail("nisa.%s: on_false_value must be a number, got %r" % (what, on_false_value))
    current().emit("gpsimd", what, dst, [data], [("op", cmp), ("value", float(on_false_value)), ("base", offset),
                                                  ("partition_step", channel_multiplier), ("free_step", step)])


def affine_select(*args, **kwargs):
    """NKI 0.3+: nisa.affine_select(dst=, pattern=, offset=, channel_multiplier=, on_true_tile=,
    on_false_value=, cmp_op=). Beta 1: affine_select(pred, on_true_tile, on_false_value) returns the
    tile, pred a comparison of index expressions (q_pos >= k_pos); both are the one GpSimd opcode."""
    from .masks import AffinePredicate
    pred = kwargs.get("pred", args[0] if args else None)
    if isinstance(pred, AffinePredicate):
        return _call(_affine_select_beta1, "affine_select", args, kwargs)
    if "dst" not in kwargs and "pattern" not in kwargs and (len(args) < 2 or _is_view(args, 1)):
        fail("nisa.affine_select(pred, on_true_tile, on_false_value): pred must compare two index expressions "
             "(q_pos >= k_pos, from nl.arange / nl.mgrid), got %r" % (pred,))
    return _call(_affine_select, "affine_select", args, kwargs)


_PRED_CMP = {"<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal"}


def _affine_select_beta1(pred, on_true_tile, on_false_value, mask=None, dtype=None):
    """(pred.const + p * coeff[0] + i * coeff[1]) cmp 0 on a [P, F] tile; a mask= that cuts the tile
    starts its affine value at the cut."""
    what = "affine_select"
    nl._no_mask(mask, "nisa." + what)
    data = _in_sbuf(on_true_tile, what)
    if set(pred.coeffs) - {0, 1} or len(nl._tile_shape(data)) != 2:
        fail("nisa.affine_select(pred=): a predicate over the partition (axis 0) and free (axis 1) index "
             "expressions of a [P, F] tile; got axes %s on shape %s" % (sorted(pred.coeffs), data.shape))
    if not nl._number(on_false_value):
        fail("nisa.%s: on_false_value must be a number, got %r" % (what, on_false_value))
    base = pred.const + sum(pred.coeffs.get(axis, 0) * lo for axis, (lo, _) in _mask_ranges(mask).items())
    out = nl._new(nl._tile_shape(data), _dt.of(dtype) or data.dtype, what)
    current().emit("gpsimd", what, out, [data], [
        ("op", _PRED_CMP[pred.op]), ("value", float(on_false_value)), ("base", base),
        ("partition_step", pred.coeffs.get(0, 0)), ("free_step", pred.coeffs.get(1, 0))])
    return out


def _mask_ranges(mask):
    from .masks import Mask
    return mask.ranges if isinstance(mask, Mask) else {}


# ------------------------------------------------------------------ statistics (VectorE)
def _stats_dst(dst, data, free, what):
    """dst, checked to be [P, free], as a view no mask= cuts on its free dim (a mask cuts the data)."""
    dst = _dst(dst, what)
    if dst.partitions != data.partitions or dst.free_elements != free:
        fail("nisa.%s: dst must be [%d, %d], got %s" % (what, data.partitions, free, dst.shape))
    view = Tile(dst.decl, dst.offset, dst.dims, dst.pdim, dst.owner)
    view.axes = [0 if i == dst.pdim else "stats" for i in range(dst.ndim)]  # masks._axis_dim: only axis 0 cuts
    return view


_STATS_FREE = {"bn_stats": 6, "bn_aggr": 2}  # result elements per partition


def _emit_stats(opcode, dst, data, mask):
    nl._no_mask(mask, "nisa." + opcode)
    data = nl._tile(data, opcode)
    current().emit("vector", opcode, _stats_dst(dst, data, _STATS_FREE[opcode], opcode), [data])


def _stats_result(opcode, data, dtype, mask):
    """Beta 1's returning form: a new [P, 6] or [P, 2] tile (data's dtype unless dtype=)."""
    data = nl._tile(data, opcode)
    out = nl._new((data.partitions, _STATS_FREE[opcode]), _dt.of(dtype) or data.dtype, opcode)
    _emit_stats(opcode, out, data, mask)
    return out


@_dst_form
def _bn_stats(dst, data, name=None, mask=None):
    """dst[P, 6] = (count, mean, variance * count) of the even, then of the odd elements of each
    partition of data (at most nl.tile_size.bn_stats_fmax elements per partition)."""
    _emit_stats("bn_stats", dst, data, mask)


@_generations(lambda a: not _is_view(a, 1))
def bn_stats(data, dtype=None, mask=None):
    return _stats_result("bn_stats", data, dtype, mask)


@_dst_form
def _bn_aggr(dst, data, name=None, mask=None):
    """dst[P, 2] = (mean, variance) of the elements bn_stats summarised in data's triples."""
    _emit_stats("bn_aggr", dst, data, mask)


@_generations(lambda a: not _is_view(a, 1))
def bn_aggr(data, dtype=None, mask=None):
    return _stats_result("bn_aggr", data, dtype, mask)


# ------------------------------------------------------------------ cross-core (LNC=2; model/core_link.h)
def _pair_peer(what):
    """This program's pair peer's rank (0 or 1) in its LNC=2 logical core; an error outside a grid of pairs."""
    prog = current()
    n = _spmd.grid_size(prog.grid)
    if n < 2 or n % 2:
        fail("nisa.%s needs LNC=2: launch the kernel on a grid of pairs of programs (kernel[2]); this launch has %d"
             % (what, n))
    return 1 - int(prog.program) % 2


def _rank(value, peer, what, name):
    if isinstance(value, bool) or not isinstance(value, int):
        fail("nisa.%s: %s=%r must be the peer's rank, 0 or 1" % (what, name, value))
    if int(value) != peer:
        fail("nisa.%s: %s=%d, but this program is rank %d of its LNC=2 pair: the only peer is rank %d"
             % (what, name, int(value), 1 - peer, peer))


def sendrecv(src, dst, send_to_rank, recv_from_rank, pipe_id=None, dma_engine=None, name=None, priority=None):
    """This program's src goes to its LNC=2 peer's dst while the peer's src comes into this dst (both
    SBUF tiles of one shape and type), by DMA. The Nth sendrecv of a program pairs with its peer's Nth
    (pipe_id groups nothing more here). dma_engine=gpsimd_dma triggers it from GpSimd, else Sync."""
    what = "sendrecv"
    peer = _pair_peer(what)
    _rank(send_to_rank, peer, what, "send_to_rank")
    _rank(recv_from_rank, peer, what, "recv_from_rank")
    for v, role in ((src, "src"), (dst, "dst")):
        if not isinstance(v, Tile) or v.decl.space != "sbuf":
            fail("nisa.%s: %s must be an SBUF tile, got %r" % (what, role, v))
    if src.dtype != dst.dtype or src.num_elements != dst.num_elements:
        fail("nisa.%s: src %s %s and dst %s %s differ: each one's src fills the other's dst"
             % (what, src.dtype.nk, list(src.shape), dst.dtype.nk, list(dst.shape)))
    engine_ = "gpsimd" if getattr(dma_engine, "name", dma_engine) == "gpsimd_dma" else "sync"
    ins = current().emit(engine_, what, dst, [src])
    ins.placed_by_kernel = True  # the pairing follows each engine stream's order: passes keep it


def core_barrier(data, cores, engine=None, name=None):
    """Both programs of an LNC=2 pair wait here until the other arrives (a remote semaphore write, then
    a local wait); `data` is the shared HBM tensor they synchronise on: writes to it before the barrier
    complete first, reads after it wait for it. cores=(0,) or 0 alone is a barrier of one core: nothing."""
    what = "core_barrier"
    members = tuple(cores) if isinstance(cores, (tuple, list)) else (cores,)
    if any(isinstance(c, bool) or not isinstance(c, int) or int(c) not in (0, 1) for c in members) \
            or len(set(int(c) for c in members)) != len(members):
        fail("nisa.%s: cores=%r must be (0, 1), or one core (0,)" % (what, cores))
    if not isinstance(data, (HbmTensor, Tile)):
        fail("nisa.%s: data must be a tensor, got %r" % (what, data))
    if len(members) < 2:
        return
    _pair_peer(what)
    prog = current()
    engine_ = _engine(engine, what, "gpsimd", what)
    prog.emit(engine_, what, None, [], reads=[data], writes=[data])


# ------------------------------------------------------------------ names the model lacks (issue 24)
for _name in ("local_gather", "select_reduce",
              "sequence_bounds", "tensor_copy_dynamic_src", "tensor_copy_dynamic_dst",
              "dropout", "shuffle", "dma_compute",
              "tensor_scalar_cumulative",
              "nc_matmul_mx", "quantize_mx", "register_alloc", "register_load",
              "register_move", "register_store", "rng", "rand2", "rand_set_state",
              "rand_get_state", "set_rng_seed", "exponential", "tensor_tensor_select", "builtin_custom_op"):
    globals()[_name] = nl._unsupported(_name, "nisa")
checked_calls(globals(), "nisa")  # last: a call that does not fit a signature is the kernel's error
