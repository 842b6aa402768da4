"""nsim.nki.isa: NKI's `nki.isa` (nisa), one ISA instruction per call, on the engine asked for."""
from . import dtypes as _dt
from . import language as nl
from . import opcodes as _opcodes
from .errors import Unsupported, fail
from .program import current
from .views import HbmTensor, IndexExpr, IndexSum, Tile

tensor_engine, vector_engine, scalar_engine, gpsimd_engine, sync_engine = (
    "tensor", "vector", "scalar", "gpsimd", "sync")
unknown_engine = None

_ALU = {nl.add: "add", nl.subtract: "subtract", nl.multiply: "multiply", nl.divide: "divide",
        nl.maximum: "max", nl.minimum: "min", nl.power: "pow"}
_REDUCE = {nl.add: "sum", nl.sum: "sum", nl.maximum: "max", nl.max: "max", nl.minimum: "min", nl.min: "min",
           nl.mean: "mean"}
_ACTIVATION = {nl.exp: "exp", nl.log: "log", nl.sqrt: "sqrt", nl.rsqrt: "rsqrt", nl.reciprocal: "reciprocal",
               nl.tanh: "tanh", nl.sigmoid: "sigmoid", nl.silu: "silu", nl.gelu: "gelu", nl.relu: "relu",
               nl.square: "square", nl.identity: "identity", nl.copy: "identity"}


def _lookup(table, op, what):
    if op not in table:
        names = sorted({"nl." + f.__name__ for f in table})
        fail("%s: op %r is not supported (supported: %s)" % (what, getattr(op, "__name__", op), ", ".join(names)),
             Unsupported)
    return table[op]


def _engine(engine, opcode, default, what):
    """The engine asked for (else `default`), if the simulator's opcode table lets it run `opcode`."""
    return _opcodes.check_engine(engine or default, opcode, what)


def _no_options(kwargs, what):
    if kwargs:
        fail("nisa.%s: options %s are not supported" % (what, ", ".join(sorted(kwargs))), Unsupported)


def nc_matmul(stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, mask=None, **kwargs):
    """PSUM[M, N] = stationary[K, M]^T @ moving[K, N] on TensorE."""
    nl._no_mask(mask, "nisa.nc_matmul")
    _no_options(kwargs, "nc_matmul")
    stationary, moving = nl._tile(stationary, "nc_matmul"), nl._tile(moving, "nc_matmul")
    nl._check_sbuf(stationary, "nc_matmul")
    nl._check_sbuf(moving, "nc_matmul")
    return nl._matmul(stationary, moving)


def nc_transpose(data, engine=None, mask=None, dtype=None):
    """[P, F] -> [F, P] on TensorE into PSUM (the VectorE 32x32 form is not modelled)."""
    nl._no_mask(mask, "nisa.nc_transpose")
    _engine(engine, "transpose", "tensor", "nc_transpose")
    return nl._transpose_to_psum(data, "nc_transpose")


def activation(op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=None, dtype=None,
               mask=None):
    """op(data * scale + bias) on ScalarE; with reduce_res=[P, 1] tile, the sums along the free axis are
    accumulated into it (reduce_op must be nl.add)."""
    nl._no_mask(mask, "nisa.activation")
    data = nl._tile(data, "activation")
    func = _lookup(_ACTIVATION, op, "activation")
    if reduce_op is not None and reduce_op not in (nl.add, nl.sum):
        fail("activation: reduce_op must be nl.add", Unsupported)
    if reduce_res is not None:
        reduce_res = nl._tile(reduce_res, "activation reduce_res")
    out = nl._new(nl._tile_shape(data), _dt.of(dtype) or data.dtype, "act")
    nl._activation_into(out, func, data, scale, bias, reduce_res)
    return out


def tensor_tensor(data1, data2, op, dtype=None, engine=None, mask=None):
    nl._no_mask(mask, "nisa.tensor_tensor")
    _engine(engine, "tensor_tensor", "vector", "tensor_tensor")
    a, b = nl._tile(data1, "tensor_tensor"), nl._tile(data2, "tensor_tensor")
    if a.partitions != b.partitions or a.free_elements != b.free_elements:
        fail("tensor_tensor: shapes %s and %s differ" % (a.shape, b.shape))
    out = nl._new(nl._tile_shape(a), _dt.of(dtype) or _dt.result_type(a.dtype, b.dtype), "tt")
    current().emit("vector", "tensor_tensor", out, [a, b], [("op", _lookup(_ALU, op, "tensor_tensor"))])
    return out


def _scalar_operand(x, like, what="tensor_scalar operand"):
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    x = nl._tile(x, what)
    if x.partitions != like.partitions or x.free_elements != 1:
        fail("%s must be a number or a [%d, 1] column, got %s" % (what, like.partitions, x.shape))
    return x


def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False, dtype=None,
                  engine=None, mask=None):
    """(data op0 operand0) op1 operand1 on VectorE (or GpSimd); operands are numbers or [P, 1] columns."""
    nl._no_mask(mask, "nisa.tensor_scalar")
    if reverse0 or reverse1:
        fail("tensor_scalar reverse operands are not supported", Unsupported)
    engine = _engine(engine, "tensor_scalar", "vector", "tensor_scalar")
    data = nl._tile(data, "tensor_scalar")
    attrs = [("op0", _lookup(_ALU, op0, "tensor_scalar")), ("scalar0", _scalar_operand(operand0, data))]
    if op1 is not None:
        attrs += [("op1", _lookup(_ALU, op1, "tensor_scalar")), ("scalar1", _scalar_operand(operand1, data))]
    out = nl._new(nl._tile_shape(data), _dt.of(dtype) or data.dtype, "ts")
    current().emit(engine, "tensor_scalar", out, [data], attrs)
    return out


def tensor_reduce(op, data, axis, dtype=None, keepdims=False, negate=False, mask=None):
    nl._no_mask(mask, "nisa.tensor_reduce")
    if negate:
        fail("tensor_reduce(negate=True) is not supported", Unsupported)
    return nl._reduce(_lookup(_REDUCE, op, "tensor_reduce"), data, axis, dtype, keepdims, "tensor_reduce")


def tensor_copy(src, dtype=None, engine=None, mask=None):
    nl._no_mask(mask, "nisa.tensor_copy")
    engine = _engine(engine, "tensor_copy", "vector", "tensor_copy")
    src = nl._tile(src, "tensor_copy")
    out = nl._new(nl._tile_shape(src), _dt.of(dtype) or src.dtype, "copy")
    current().emit(engine, "tensor_copy", out, [src])
    return out


def memset(shape, value, dtype, engine=None, mask=None):
    nl._no_mask(mask, "nisa.memset")
    engine = _engine(engine, "memset", "vector", "memset")
    out = nl._new(shape, _dt.of(dtype), "memset")
    current().emit(engine, "memset", out, [], [("value", nl._fill_value(value, "nisa.memset"))])
    return out


def iota(expr, dtype, mask=None):
    """GpSimd: a tile holding expr = base + p * partition_step + i * free_step, from nl.arange
    expressions placed on the partition ([:, None]) and free ([None, :]) axes."""
    nl._no_mask(mask, "nisa.iota")
    terms = expr.terms if isinstance(expr, IndexSum) else [expr]
    if not all(isinstance(t, IndexExpr) and t.axis in (0, 1) for t in terms):
        fail("iota takes nl.arange(P)[:, None] and/or nl.arange(F)[None, :] terms")
    base = sum(t.start for t in terms) + (expr.const if isinstance(expr, IndexSum) else 0)
    p = [t for t in terms if t.axis == 0]
    f = [t for t in terms if t.axis == 1]
    if len(p) > 1 or len(f) > 1:
        fail("iota: at most one partition and one free term")
    parts, pstep = (p[0].size, p[0].step) if p else (1, 0)
    free, fstep = (f[0].size, f[0].step) if f else (1, 0)
    out = nl._new((parts, free), _dt.of(dtype), "iota")
    current().emit("gpsimd", "iota", out, [], [("base", base), ("partition_step", pstep), ("free_step", fstep)])
    return out


def dma_copy(dst, src, queue=None, engine=None, mask=None, **kwargs):
    """A DMA between HBM, SBUF and PSUM on `queue` (default: the frontend's rotation), triggered from
    `engine` (default: the producer of an on-chip source, else Sync)."""
    nl._no_mask(mask, "nisa.dma_copy")
    _no_options(kwargs, "dma_copy")
    for v, what in ((dst, "dst"), (src, "src")):
        if not isinstance(v, (HbmTensor, Tile)):
            fail("dma_copy %s must be a tensor or tile, got %r" % (what, v))
    if dst.num_elements != src.num_elements:
        fail("dma_copy: dst has %d elements, src %d" % (dst.num_elements, src.num_elements))
    prog = current()
    engine = _engine(engine, "dma_copy", prog.dma_engine(src), "dma_copy")
    if queue is not None and (isinstance(queue, bool) or not isinstance(queue, int)):  # the range: the simulator's
        fail("dma_copy: queue=%r must be an integer (a DMA queue of the config)" % (queue,))
    attrs = [("queue", int(queue))] if queue is not None else []
    prog.emit(engine, "dma_copy", dst, [src], attrs)


def tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0=False, reverse1=False, dtype=None, mask=None,
                       **kwargs):
    """A scan along the free axis on VectorE, one chain per partition:
    result[:, i] = op1(op0(data0[:, i], result[:, i-1]), data1[:, i]), result[:, -1] = initial
    (a number or a [P, 1] column). The carried value stays fp32 inside the engine."""
    nl._no_mask(mask, "nisa.tensor_tensor_scan")
    _no_options(kwargs, "tensor_tensor_scan")
    if reverse0 or reverse1:
        fail("tensor_tensor_scan reverse operands are not supported", Unsupported)
    a, b = nl._tile(data0, "tensor_tensor_scan"), nl._tile(data1, "tensor_tensor_scan")
    if a.partitions != b.partitions or a.free_elements != b.free_elements:
        fail("tensor_tensor_scan: shapes %s and %s differ" % (a.shape, b.shape))
    attrs = [("op0", _lookup(_ALU, op0, "tensor_tensor_scan")), ("op1", _lookup(_ALU, op1, "tensor_tensor_scan")),
             ("initial", _scalar_operand(initial, a, "tensor_tensor_scan initial"))]
    out = nl._new(nl._tile_shape(a), _dt.of(dtype) or _dt.result_type(a.dtype, b.dtype), "scan")
    current().emit("vector", "tensor_tensor_scan", out, [a, b], attrs)
    return out


for _name in ("affine_select", "bn_stats", "bn_aggr", "local_gather", "range_select", "select_reduce",
              "sequence_bounds", "tensor_copy_dynamic_src", "tensor_copy_dynamic_dst", "max8", "nc_find_index8",
              "nc_match_replace8", "tensor_partition_reduce", "dropout", "shuffle", "nc_stream_shuffle"):
    globals()[_name] = nl._unsupported(_name, "nisa")
