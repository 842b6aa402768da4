"""nsim.nki.language: NKI's `nki.language` (nl) on the simulator.

Each function lowers to the project's ISA on the engine the NKI compiler
would pick (README "NKI kernels", supported API table): DMA for load/store,
VectorE for element-wise arithmetic, copies and reductions, ScalarE for
activation functions, TensorE for matmul and transpose.
"""
import builtins
import itertools
import math
import numbers
import operator
import os

from . import dtypes as _dt
from . import ops_table as _ops_table
from . import spmd as _spmd
from .dtypes import bfloat16, float16, float32, int32  # noqa: F401  (NKI names)
from .errors import Unsupported, checked_calls, fail
from .program import ParDim, current, positive_shape
from .views import DynSlice, HbmTensor, IndexExpr, Tile, View

# ------------------------------------------------------------------ buffers
sbuf = "sbuf"
psum = "psum"
hbm = "hbm"
shared_hbm = "shared_hbm"
private_hbm = "private_hbm"
_HBM = (hbm, shared_hbm, private_hbm)
globals().update(_dt.BY_NAME)  # nl.uint8, nl.float8_e4m3, nl.bool_, ...: the simulator's element types
globals().update(_dt.UNSUPPORTED)  # nl.float8_e4m3fn_x4, ...: exist, raise nki.Unsupported when used


def par_dim(n):
    """Marks the partition dim of a tile shape: ndarray((4, nl.par_dim(128), 512), ...)."""
    return ParDim(n)


class _TileSize:
    """nl.tile_size: the hardware's tile limits, from the config the kernel runs on (outside a
    kernel, e.g. in a module-level constant: the default config, platform.default_config())."""

    pmax = property(lambda self: _info()["partitions"])
    gemm_stationary_fmax = property(lambda self: _info()["tensor_cols"])
    gemm_moving_fmax = property(lambda self: _info()["moving_free_max"])
    psum_fmax = property(lambda self: _info()["psum_bank_bytes"] // 4)
    psum_num_banks = property(lambda self: _info()["psum_banks"])
    total_available_sbuf_size = property(lambda self: _info()["sbuf_bytes_per_partition"])
    bn_stats_fmax = property(lambda self: _info()["bn_stats_fmax"])


def _info():
    from . import platform
    return current().info if _tracing() else platform.default_info()


def _tracing():
    from . import program
    return builtins.bool(program._current)


tile_size = _TileSize()


# ------------------------------------------------------------------ index expressions and loops
def _index_size(start, stop, step, what):
    """The number of indices start, start+step, ... before stop; a KernelError unless integers, step != 0."""
    try:
        start, stop, step = (operator.index(v) for v in (start, stop, step))  # NumPy integers too
        size = builtins.max(0, -(-(stop - start) // step))
    except (TypeError, ZeroDivisionError):
        size = None
    if not isinstance(size, int):
        fail("%s: start, stop and step must be integers (stop given), step not 0; got %r, %r, %r"
             % (what, start, stop, step))
    return size


def arange(start, stop=None, step=1):
    """An index expression start, start+step, ... below stop, placed with [:, None] / [None, :] (Beta 1)."""
    if stop is None:
        start, stop = 0, start
    size = _index_size(start, stop, step, "nl.arange")
    start, step = (v if isinstance(v, int) else operator.index(v) for v in (start, step))
    return IndexExpr(start, step, size)


class _Grid(tuple):
    """nl.mgrid's result: a tuple of index expressions, also named by dim (p, x, y, z as Beta 1 has them)."""

    def _dim(self, i, name):
        if i >= len(self):
            fail("nl.mgrid with %d dims has no .%s" % (len(self), name))
        return self[i]

    p = property(lambda self: self._dim(0, "p"))
    x = property(lambda self: self._dim(1, "x"))
    y = property(lambda self: self._dim(2, "y"))
    z = property(lambda self: self._dim(3, "z"))


class _MGrid:
    """nl.mgrid[0:P, 0:F]: index expressions over a tile's partitions and free elements (Beta 1)."""

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        exprs = []
        for axis, s in enumerate(key):
            if not isinstance(s, slice):
                fail("nl.mgrid[...]: axis %d is %r, expected a slice start:stop" % (axis, s))
            start, step = s.start or 0, s.step or 1
            exprs.append(IndexExpr(start, step, _index_size(start, s.stop, step, "nl.mgrid axis %d" % axis), axis))
        for e in exprs:
            e.grid = tuple(x.size for x in exprs)
        return _Grid(exprs)


mgrid = _MGrid()


def _range(what, args):
    try:
        return builtins.range(*args)
    except (TypeError, ValueError) as e:  # a float, a string, step 0, ...
        fail("nl.%s%r: %s" % (what, tuple(args), e))


def _loop(r, rolled=False):
    """Runs the body once per iteration; `rolled`: the .nk text may keep it a loop (reroll.py), so
    each iteration tags the instructions it makes."""
    prog = current()
    prog.loop_depth += 1
    loop = prog.loops_made = prog.loops_made + 1
    if rolled:
        prog.loop_path.append((loop, 0))
    prog.site_calls.append({})
    try:
        for k, value in enumerate(r):
            if rolled:
                prog.loop_path[-1] = (loop, k)
            prog.site_calls[-1] = {}
            yield value
    finally:
        prog.loop_depth -= 1
        prog.site_calls.pop()
        if rolled:
            prog.loop_path.pop()


def affine_range(*args):
    """Iterations without loop-carried dependencies; tiles made inside rotate over N buffers."""
    return _loop(_range("affine_range", args), rolled=True)


def sequential_range(*args):
    """Iterations that depend on each other (the semaphores order them anyway)."""
    return _loop(_range("sequential_range", args), rolled=True)


def static_range(*args):
    """Fully unrolled at trace time (every loop is)."""
    return _loop(_range("static_range", args))


def program_id(axis):
    """The index of this program along `axis` of the launch grid (kernel[grid](...)).
    Outside a grid launch a kernel is program 0 of a grid of 1."""
    prog = current()
    if isinstance(axis, builtins.bool) or not isinstance(axis, int) or not 0 <= axis < len(prog.grid):
        fail("nl.program_id(%r): the launch grid %s has axes 0..%d" % (axis, prog.grid, len(prog.grid) - 1))
    return _spmd.program_index(prog.grid, prog.program, axis)


def num_programs(axes=None):
    """Programs along `axes` (an int or a tuple; None: all) of the launch grid."""
    grid = current().grid
    if axes is None:
        axes = tuple(builtins.range(len(grid)))
    for a in (axes if isinstance(axes, (tuple, list)) else (axes,)):
        if isinstance(a, builtins.bool) or not isinstance(a, int) or not 0 <= a < len(grid):
            fail("nl.num_programs(%r): the launch grid %s has axes 0..%d" % (axes, grid, len(grid) - 1))
    if isinstance(axes, int):
        axes = (axes,)
    n = math.prod(grid[a] for a in axes)
    if len(grid) == 1:
        return _spmd.ProgramIndex(n, "num_programs")
    return n


def program_ndim():
    """The number of axes of the launch grid: 0 for a kernel launched without one."""
    prog = current()
    return len(prog.grid) if prog.launched_grid else 0


def ds(start, size):
    """A subscript of `size` elements from `start`: t[nl.ds(128 * i, 128)] is t[128 * i:128 * (i + 1)]."""
    if not (_number(size) and float(size).is_integer()):
        fail("nl.ds(%r, %r): size must be an integer number of elements" % (start, size))
    return DynSlice(start, int(size))


class NKIObject:
    """Base of kernel-side config and helper classes: annotated class attributes are its fields;
    NKIObject(**fields) (or positional, in annotation order) sets them."""

    def __init_subclass__(cls, **kwargs):
        """Plain class attributes (`section_idx = None`, no annotation) are fields too, so a @dataclass
        subclass takes them as keywords (the NKI Library's attention_cte SectionParams(section_idx=...))."""
        super().__init_subclass__(**kwargs)
        annotations = dict(cls.__dict__.get("__annotations__", {}))
        for name, value in cls.__dict__.items():
            if name.startswith("_") or name in annotations or callable(value) or \
                    isinstance(value, (classmethod, staticmethod, property, list, dict, set)):
                continue
            annotations[name] = object
        cls.__annotations__ = annotations

    def __init__(self, *args, **kwargs):
        names = [n for c in reversed(type(self).__mro__) for n in getattr(c, "__annotations__", {})]
        names = list(dict.fromkeys(names))
        if len(args) > len(names):
            fail("%s takes at most %d positional fields, got %d" % (type(self).__name__, len(names), len(args)))
        for name, value in list(zip(names, args)) + list(kwargs.items()):
            setattr(self, name, value)


tensor = View        # the annotation names of tensors
dtype = _dt.DType


def range(*args):  # noqa: A001 (an undocumented alias the NKI Library calls)
    """nl.sequential_range (the NKI Library's mxfp_load_utils calls nl.range)."""
    return sequential_range(*args)


# ------------------------------------------------------------------ helpers
def _tile(x, what):
    if isinstance(x, HbmTensor):
        fail("%s: %s is in HBM; engines read SBUF/PSUM tiles: nl.load it first" % (what, x.decl.name))
    if not isinstance(x, Tile):
        fail("%s: expected a tile, got %r" % (what, x))
    return x


def _tile_shape(x):
    """The shape of a new tile like x: partition dim first."""
    return (x.partitions,) + tuple(s for i, s in enumerate(x.shape) if i != x.pdim)


def _new(shape, dtype, label, space=sbuf, num_buffers=None):
    return current().new_tile(shape, dtype, space, label, num_buffers)


def _np_bool():
    import numpy as np
    return np.bool_


def _no_mask(mask, what):
    """Applies `mask` to the instructions of this call (Program.emit cuts their operands, masks.py)."""
    from .masks import AffinePredicate, Mask
    if isinstance(mask, (builtins.bool, _np_bool())):  # a predicate Python already decided: all or nothing
        mask = None if mask else Mask({}, skip=True)
    if isinstance(mask, AffinePredicate):
        fail("%s(mask=...): a comparison of two index expressions is an affine_select predicate (pred=), not a "
             "mask (a mask compares one index expression with an integer)" % what)
    if mask is not None and not isinstance(mask, Mask):
        fail("%s(mask=%r): a mask is a comparison of index expressions (i_p < n), combined with &" % (what, mask))
    current().set_mask(mask)


def _number(x):
    """A Python or NumPy number (np.int32 sizes reach kernels from host code)."""
    return isinstance(x, numbers.Real) and not isinstance(x, (builtins.bool, _np_bool()))


_ALU = _ops_table.nl_alu_names()  # {nl name: ALU op}: the simulator's table
_COMMUTATIVE = tuple(n for n, op in _ALU.items() if op in _ops_table.commutative_alu_names())


def _is_column(t, like):
    return t.partitions == like.partitions and t.free_elements == 1 and like.free_elements > 1


# s <op> t as (t <op0> c) <op1> s: s - t = t * -1 + s; s / t = t ** -1 * s (softmax's 1 / sum)
_NUMBER_ON_THE_LEFT = {"subtract": ("multiply", -1.0, "add"), "divide": ("pow", -1.0, "multiply")}


def _binary_into(dst, x, y, name):
    """dst = x <name> y on VectorE: tensor_tensor, or tensor_scalar for a number or a [P, 1] column."""
    prog, op = current(), _ALU[name]
    if _number(x) and name in _COMMUTATIVE:
        x, y = y, x
    if _number(x):  # one tensor_scalar, as the engine's reversed operand would be
        first = _NUMBER_ON_THE_LEFT.get(name)
        if first is None:
            fail("nl.%s with a number on the left is not supported; reorder it" % name, Unsupported)
        return prog.emit("vector", "tensor_scalar", dst, [_tile(y, name)],
                         [("op0", first[0]), ("scalar0", first[1]), ("op1", first[2]), ("scalar1", float(x))])
    x = _tile(x, name)
    if _number(y):
        return prog.emit("vector", "tensor_scalar", dst, [x], [("op0", op), ("scalar0", float(y))])
    y = _tile(y, name)
    if _is_column(y, x):
        return prog.emit("vector", "tensor_scalar", dst, [x], [("op0", op), ("scalar0", y)])
    if _is_column(x, y) and name in _COMMUTATIVE:
        return prog.emit("vector", "tensor_scalar", dst, [y], [("op0", op), ("scalar0", x)])
    x, y = _broadcast_pair(x, y)
    if x.partitions != y.partitions or x.free_elements != y.free_elements:
        fail("nl.%s: shapes %s and %s do not match (nor is one a [P, 1] column)" % (name, x.shape, y.shape))
    return prog.emit("vector", "tensor_tensor", dst, [x, y], [("op", op)])


def _broadcast_pair(x, y):
    """NumPy broadcasting of size-1 free dims (stride 0) when the two tiles have the same rank and
    partitions: (128, 56, 1, 1) with (128, 56, 3, 3) in Beta 1's select_and_scatter."""
    if x.shape == y.shape or x.ndim != y.ndim or x.partitions != y.partitions:
        return x, y
    shape = tuple(builtins.max(a, b) for a, b in zip(x.shape, y.shape))
    if not builtins.all(a in (1, n) and b in (1, n) for a, b, n in zip(x.shape, y.shape, shape)):
        return x, y
    return (x if x.shape == shape else x.broadcast_to(shape)), (y if y.shape == shape else y.broadcast_to(shape))


def _binary(name, x, y, dtype):
    if _number(x) and _number(y):
        fail("nl.%s of two numbers: compute it in Python" % name)
    tiles = [t for t in (x, y) if not _number(t)]
    like = builtins.max((_tile(t, name) for t in tiles), key=lambda t: t.free_elements)
    out = _new(_tile_shape(like), _dt.of(dtype) or _dt.result_type(*(t.dtype for t in tiles)), name)
    _binary_into(out, x, y, name)
    return out


def _binary_fn(name):
    def fn(x, y, dtype=None, mask=None):
        _no_mask(mask, name)
        return _binary(name, x, y, dtype)
    fn.__name__ = name
    fn.__doc__ = "nl.%s element-wise on VectorE (op=%s)." % (name, _ALU[name])
    return fn


for _name in _ALU:  # nl.add, nl.equal, nl.bitwise_and, ...: one per ALU op of the simulator's table
    globals()[_name] = _binary_fn(_name)


def logical_not(x, dtype=None, mask=None):
    """nl.logical_not: x == 0 on VectorE (tensor_scalar equal 0), 1.0 or 0.0."""
    _no_mask(mask, "logical_not")
    return _binary("equal", x, 0.0, dtype)


def invert(x, dtype=None, mask=None):
    """nl.invert (bitwise not): x ^ -1 on VectorE (tensor_scalar bitwise_xor -1)."""
    _no_mask(mask, "invert")
    return _binary("bitwise_xor", x, -1.0, dtype)


def negative(x, dtype=None, mask=None):
    """-x on VectorE (tensor_scalar multiply by -1)."""
    _no_mask(mask, "negative")
    return _binary("multiply", x, -1.0, dtype)


# ------------------------------------------------------------------ activations (ScalarE)
def _activation_into(dst, func, x, scale=1.0, bias=None, acc=None):
    attrs = [("func", func)]
    if not (_number(scale) and scale == 1.0):
        attrs.append(("scale", float(scale) if _number(scale) else _tile(scale, "scale")))
    if bias is not None and not (_number(bias) and bias == 0):
        attrs.append(("bias", float(bias) if _number(bias) else _tile(bias, "bias")))
    writes = []
    if acc is not None:
        attrs.append(("acc", acc))
        writes.append(acc)
    return current().emit("scalar", "activation", dst, [x], attrs, writes=writes)


def _unary(func):
    def fn(x, dtype=None, mask=None):
        _no_mask(mask, func)
        x = _tile(x, func)
        out = _new(_tile_shape(x), _dt.of(dtype) or x.dtype, func)
        _activation_into(out, func, x)
        return out
    fn.__name__ = func
    fn.__doc__ = "nl.%s on ScalarE (activation func=%s)." % (func, func)
    return fn


_ACTIVATION = _ops_table.nl_activation_names()  # {nl name: activation function}: the simulator's table
for _name, _func in _ACTIVATION.items():  # nl.exp, nl.abs, nl.gelu_apprx_tanh, ...
    globals()[_name] = _unary(_func)


def _unsupported(name, module="nl"):
    def fn(*args, **kwargs):
        fail("%s.%s is not supported by the simulator (no such ISA operation modelled)" % (module, name), Unsupported)
    fn.__name__ = name
    fn.nsim_unsupported = True  # docs/nki-api.md lists it as a name that raises nki.Unsupported when used
    return fn


def shared_constant(constant, dtype=None):
    """An HBM tensor holding a NumPy constant (cast to dtype), given to the run as an input; the
    constant may be the path of a .npy file (the NKI Library's topk saves its rotation matrices so)."""
    import numpy as np
    arr = _npy_file(constant) if isinstance(constant, (str, bytes, os.PathLike)) else np.asarray(constant)
    if arr.ndim == 0 or arr.size == 0:
        fail("nl.shared_constant: the constant must be an array with at least one element, got shape %s"
             % (arr.shape,))
    return current().constant(arr, _dt.of(dtype) or _dt.of(arr.dtype, "nl.shared_constant dtype"))


def _npy_file(path):
    import numpy as np
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        fail("nl.shared_constant(%r): not a readable .npy file (%s)" % (path, e))


def shared_identity_matrix(n, dtype=float32):
    """An [n, n] identity matrix in a new SBUF tile (an HBM constant, loaded by one DMA)."""
    import numpy as np
    n = positive_shape((n,), "nl.shared_identity_matrix")[0]
    src = shared_constant(np.identity(n, dtype=np.float32), dtype)
    out = current().new_tile((n, n), _dt.of(dtype), sbuf, "identity")
    current().emit("sync", "dma_copy", out, [src])
    return out


def broadcast_to(x, shape):
    """x.broadcast_to(shape) (Beta 1's function form)."""
    return x.broadcast_to(shape)


def spmd_dim(*sizes):
    """Beta 1 `kernel[nl.spmd_dim(n, nl.nc(2)), ...]`: n * 2 programs on that grid axis, n per
    NeuronCore of the pair (the chip model runs one program per core, in waves when there are more)."""
    return math.prod(sizes)


def nc(n):
    """Beta 1 `nl.nc(n)`: n logical NeuronCores (see spmd_dim)."""
    return n


fp32 = float32  # Beta 1 spelling
finfo = _dt.finfo
Tensor = View

# not modelled (the names the simulator's tables give are defined above)
for _name in ("softmax", "dropout", "all_reduce", "atomic_rmw",
              "gather_flattened", "random_seed", "rand", "dynamic_range", "fori_loop",
              "exp2", "tan", "prod", "all", "var", "argmax", "argmin", "expand_dims", "zeros_like",
              "ones_like", "empty_like", "full_like", "device_print", "rms_norm"):
    globals()[_name] = _unsupported(_name)


def _numpy_ufuncs():
    """NumPy ufuncs Beta 1 kernels use on tiles and as instruction ops (np.multiply(a, b),
    nisa.tensor_tensor_scan(..., op0=np.multiply)) -> the nl function that lowers them."""
    import numpy as np
    return {np.add: add, np.subtract: subtract, np.multiply: multiply, np.divide: divide, np.true_divide: divide,
            np.maximum: maximum, np.minimum: minimum, np.power: power, np.exp: exp, np.log: log, np.sqrt: sqrt,
            np.tanh: tanh, np.negative: negative, np.square: square, np.reciprocal: reciprocal,
            # reductions named by NumPy function (reduce_op=np.max: Beta 1's allocated attention)
            np.max: max, np.min: min, np.sum: sum, np.mean: mean}


def _as_nl_op(op):
    """op itself, or the nl function a NumPy ufunc stands for."""
    try:
        return _numpy_ufuncs().get(op, op)
    except TypeError:  # unhashable: not an op
        return op


# ------------------------------------------------------------------ reductions (VectorE)
def _reduce_view(x, axis, what):
    """x with its kept dims first and the reduced free axes after them (tensor_reduce folds the
    trailing dims its dst lacks, strided or not), and the kept dims."""
    axes = [axis] if isinstance(axis, int) else list(axis) if isinstance(axis, (tuple, list)) else None
    if not axes or not builtins.all(isinstance(a, int) and -x.ndim <= a < x.ndim for a in axes):
        fail("nl.%s: axis=%r must be an axis or a tuple of axes of a tile of shape %s" % (what, axis, x.shape))
    axes = sorted({a + x.ndim if a < 0 else a for a in axes})
    if x.pdim in axes:
        fail("nl.%s over the partition dim is not supported: reduce along free axes (or transpose first)" % what,
             Unsupported)
    keep = [i for i in builtins.range(x.ndim) if i not in axes]
    kept = [x.dims[i] for i in keep]
    pdim = None if x.pdim is None else x.pdim - builtins.sum(a < x.pdim for a in axes)
    src = Tile(x.decl, x.offset, kept + [x.dims[a] for a in axes], pdim, x.owner)
    src.axes = [_mask_axis(x, i) for i in keep + axes]  # a mask= still finds its dims after the reorder
    return src, kept, axes


def _mask_axis(x, dim):
    """The mask= axis that restricts dim `dim` of x (masks.py): its index expression's, else its number."""
    return x.axes[dim] if x.axes else dim


def _reduce(op, x, axis, dtype, keepdims, name, negate=False):
    x = _tile(x, name)
    src, kept, axes = _reduce_view(x, axis, name)
    shape = tuple(s for i, (_, s) in enumerate(x.dims) if i not in axes or keepdims)
    shape = tuple(1 if (i in axes) else s for i, s in enumerate(shape)) if keepdims else shape
    out = _new(_pfirst(shape, x.pdim), _dt.of(dtype) or x.dtype, name)
    if x.pdim in (0, None):  # the kept dims in order: a mask on a reduced axis leaves them whole
        out.axes = [_mask_axis(x, i) for i in builtins.range(x.ndim) if keepdims or i not in axes]
    current().emit("vector", "tensor_reduce", out, [src], [("op", op)] + ([("negate", "true")] if negate else []))
    return out


def _pfirst(shape, pdim):
    return (shape[pdim],) + tuple(s for i, s in enumerate(shape) if i != pdim)


def _reduce_fn(op):
    def fn(x, axis, dtype=None, keepdims=False, mask=None):
        _no_mask(mask, op)
        return _reduce(op, x, axis, dtype, keepdims, op)
    fn.__name__ = op
    fn.__doc__ = "nl.%s along free axes on VectorE (tensor_reduce op=%s)." % (op, op)
    return fn


sum = _reduce_fn("sum")  # noqa: A001 (NKI's names)
max = _reduce_fn("max")  # noqa: A001
min = _reduce_fn("min")  # noqa: A001
mean = _reduce_fn("mean")


# ------------------------------------------------------------------ TensorE
def _check_sbuf(t, what):
    if t.decl.space != sbuf:
        fail("%s operands are read from SBUF; this tile is in %s (copy it with nl.copy)" % (what, t.decl.space))


def _transpose_to_psum(x, what):
    x = _tile(x, what)
    info = current().info
    if x.free_elements > info["tensor_cols"]:
        fail("%s: free size %d exceeds %d (it becomes the partition dim)" % (what, x.free_elements, info["tensor_cols"]))
    out = _new((x.free_elements, x.partitions), float32, what, psum)
    current().emit("tensor", "transpose", out, [x])
    return out


def transpose(x, dtype=None, mask=None):
    """[P, F] -> [F, P] on TensorE, into PSUM (fp32)."""
    _no_mask(mask, "transpose")
    return _transpose_to_psum(x, "transpose")


def matmul(x, y, transpose_x=False, mask=None):
    """x @ y into a PSUM fp32 tile on TensorE; x is [M, K] (or [K, M] with transpose_x=True), y [K, N]."""
    _no_mask(mask, "matmul")
    x, y = _tile(x, "matmul"), _tile(y, "matmul")
    if not transpose_x:
        xt = _transpose_to_psum(x, "matmul")
        x = copy(xt, dtype=x.dtype)
    _check_sbuf(x, "matmul")
    _check_sbuf(y, "matmul")
    return _matmul(x, y)


def _matmul(stationary, moving):
    info = current().info
    k, m, n = stationary.partitions, stationary.free_elements, moving.free_elements
    if moving.partitions != k:
        fail("matmul: contraction (partition) dims differ: stationary %s, moving %s" % (stationary.shape, moving.shape))
    if m > info["tensor_cols"]:
        fail("matmul: stationary free size %d exceeds the %d PE columns" % (m, info["tensor_cols"]))
    if n > info["moving_free_max"]:
        fail("matmul: moving free size %d exceeds %d (one PSUM bank)" % (n, info["moving_free_max"]))
    out = _new((m, n), float32, "matmul", psum)
    current().emit("tensor", "matmul", out, [stationary, moving])
    return out


# ------------------------------------------------------------------ memory
def ndarray(shape, dtype, buffer=sbuf, name=None, num_buffers=None, address=None):
    """A tensor: in HBM (buffer=nl.shared_hbm/hbm: a kernel output) or an SBUF/PSUM tile.
    buffer=ncc.sbuf.mod_alloc(num_free_tiles=N) rotates the tile over N buffers; explicit byte
    placement (its base_addr, address=) is recorded on the tile, and the simulator's loader places
    tensors itself (decl.address)."""
    from .compiler import Allocation
    dtype = _dt.of(dtype)
    placed, logical = None, None
    if isinstance(buffer, Allocation):
        placed, buffer = buffer, buffer.space
        num_buffers = math.prod(placed.num_free_tiles) if placed.num_free_tiles else 1
        if placed.callback:
            placed.base_addr = _callback_places(placed, shape, dtype)
        elif _block_dims(shape) and len(placed.num_free_tiles) == _block_dims(shape):
            logical, shape, num_buffers = shape, tuple(placed.num_free_tiles) + tuple(shape[_block_dims(shape):]), 1
    if buffer in _HBM:
        return current().hbm_tensor(name or "out", [int(s) for s in positive_shape(shape, "HBM tensor")], dtype,
                                    buffer=buffer)
    if buffer not in (sbuf, psum):
        fail("unknown buffer %r (use nl.sbuf, nl.psum, nl.shared_hbm)" % (buffer,))
    declared = dtype
    if buffer == psum and dtype is not float32:
        if dtype not in _PSUM_16BIT:
            fail("%r PSUM tiles are not modelled (PSUM holds fp32, bf16 or fp16)" % (dtype,), Unsupported)
        dtype = float32  # the model's PSUM is fp32: see _PSUM_16BIT
    tile = current().new_tile(shape, dtype, buffer, name or "tile", num_buffers, declared=True)
    tile.decl.declared_dtype = declared
    tile.decl.address = address if address is not None else (placed.base_addr if placed else None)
    return _modulo_blocks(tile, logical) if logical else tile


def _block_dims(shape):
    """The number of block dims before an nl.par_dim (0 when the partition dim is first)."""
    return next((i for i, s in enumerate(shape) if isinstance(s, ParDim)), 0)


def _modulo_blocks(tile, logical):
    """Beta 1's mod_alloc(num_free_tiles=(N1, ...)) of a tile with block dims (B1, ..., par_dim(P), ...):
    block (i1, ...) is physical block (i1 % N1, ...), so the tile takes N1 * ... blocks of memory, not
    B1 * .... The view keeps the logical sizes; indexing a block dim wraps (View._indexed)."""
    nblock = _block_dims(logical)
    dims = [[stride, int(logical[i]) if i < nblock else size] for i, (stride, size) in enumerate(tile.dims)]
    view = Tile(tile.decl, tile.offset, dims, tile.pdim, tile)
    view.block_mod = [tile.dims[i][1] if i < nblock else None for i in builtins.range(len(dims))]
    return view


def _callback_places(placed, shape, dtype):
    """The block places an ncc.*.alloc callback gives: one per index of the dims before par_dim."""
    from . import compiler
    pdim = next((i for i, s in enumerate(shape) if isinstance(s, ParDim)), 0)
    blocks = list(itertools.product(*[range(int(s)) for s in shape[:pdim]]))
    fdim_bytes = math.prod(int(s) for s in shape[pdim + 1:]) * dtype.size
    space = compiler.sbuf if placed.space == "sbuf" else compiler.psum
    return space.place_blocks(placed.callback, blocks, int(shape[pdim]), fdim_bytes)


# A bf16/fp16 PSUM tile (NKI 0.3+, gen3+ kernels) is stored as fp32 in the model, whose PSUM is fp32:
# a transpose or copy through it carries the same values; a matmul result is rounded to 16 bits once,
# when read out, rather than when written; it takes 4 bytes per element of PSUM capacity, not 2.
# The kernel sees the dtype it asked for (tile.dtype).
_PSUM_16BIT = (bfloat16, float16)


def full(shape, fill_value, dtype, buffer=sbuf, name=None, num_buffers=None, lazy_initialization=False):
    """A new SBUF/PSUM tile filled with fill_value (a VectorE memset)."""
    if buffer in _HBM:
        fail("nl.full/zeros in HBM is not supported: fill a tile and nl.store it", Unsupported)
    t = ndarray(shape, dtype, buffer, name, num_buffers)
    ins = _memset(t, fill_value)
    if buffer == psum and fill_value == 0:
        current().zero_filled(t, ins)
    return t


def zeros(shape, dtype, buffer=sbuf, name=None, num_buffers=None, lazy_initialization=False):
    """A new tile of zeros (a VectorE memset; dropped before a matmul that starts accumulating into it)."""
    return full(shape, 0.0, dtype, buffer, name, num_buffers)


def ones(shape, dtype, buffer=sbuf, name=None, num_buffers=None, lazy_initialization=False):
    """A new tile of ones (a VectorE memset)."""
    return full(shape, 1.0, dtype, buffer, name, num_buffers)


def _fill_value(value, what):
    """A fill value as a float (Python or NumPy numbers), or a KernelError."""
    try:
        if isinstance(value, (str, bytes)):  # float("1.5") would parse it: a string is not a number here
            raise TypeError(value)
        return float(value)
    except (TypeError, ValueError):
        fail("%s: the fill value must be a number, got %r" % (what, value))


def _memset(dst, value):
    return current().emit("vector", "memset", dst, [], [("value", _fill_value(value, "nl.full"))])


def _partition_broadcast(row, parts):
    """A one-partition tile repeated on `parts` partitions, in a new tile: ones[1, parts]^T @ row on
    TensorE into PSUM, 512 columns at a time, copied out on VectorE (how a partition broadcast is
    done on chip; Beta 1's `t.broadcast_to((P, N))` of a [1, N] tile)."""
    if row.partitions != 1:
        fail("broadcast across partitions needs a tile of one partition, this one has %d" % row.partitions)
    if row.dtype not in (float32, bfloat16, float16):
        fail("broadcast across partitions of a %r tile is not modelled (TensorE reads floats)" % (row.dtype,),
             Unsupported)
    free = row.free_elements
    flat = Tile(row.decl, row.offset, [[row.decl.free_size, 1], [1, free]], 0, row.owner)
    if [d for i, d in enumerate(row.dims) if i != row.pdim] != [[1, free]] and not row.is_contiguous():
        flat = _new((1, free), row.dtype, "pbcast_row")
        _copy_into(flat, row)  # TensorE's moving operand: one contiguous row
    ones = _new((1, parts), row.dtype, "pbcast_ones")
    _memset(ones, 1.0)
    shape = [s for i, s in enumerate(row.shape) if i != row.pdim]
    out = _new((parts,) + tuple(shape), row.dtype, "pbcast")
    out_flat = Tile(out.decl, 0, [[out.decl.free_size, parts], [1, free]], 0, out.owner)
    step = current().info["moving_free_max"]
    for c in builtins.range(0, free, step):
        n = builtins.min(step, free - c)
        acc = _new((parts, n), float32, "pbcast_psum", psum, num_buffers=2)
        current().emit("tensor", "matmul", acc, [ones, flat[:, c:c + n]])
        _copy_into(out_flat[:, c:c + n], acc)
    return out


def _copy_into(dst, src):
    current().emit("vector", "tensor_copy", dst, [src])


def load(src, dtype=None, mask=None, num_buffers=None):
    """HBM -> a new SBUF tile (DMA, triggered from Sync); dim 0 of `src` is the partition dim."""
    _no_mask(mask, "nl.load")
    if not isinstance(src, HbmTensor):
        fail("nl.load reads an HBM tensor, got %r" % (src,))
    if src.ndim == 0:
        fail("nl.load of a single element: index with a slice to keep a partition dim")
    if src.shape[0] > current().info["partitions"]:
        fail("nl.load: partition dim %d (dim 0 of %s) exceeds the %d partitions; load it in tiles of %d"
             % (src.shape[0], src.shape, current().info["partitions"], current().info["partitions"]))
    out = current().new_tile(src.shape, _dt.of(dtype) or src.dtype, sbuf, "load", num_buffers)
    current().emit("sync", "dma_copy", out, [src])
    return out


def load_transpose2d(src, dtype=None, mask=None):
    """HBM [a, b] -> a new SBUF tile [b, a] (Beta 1): one DMA whose source pattern walks src column by
    column, so its cost is the DMA model's for an element-strided read (a descriptor per element)."""
    _no_mask(mask, "nl.load_transpose2d")
    if not isinstance(src, HbmTensor) or src.ndim != 2:
        fail("nl.load_transpose2d reads a 2-D HBM tensor view, got %r" % (src,))
    if src.shape[1] > current().info["partitions"]:
        fail("nl.load_transpose2d: dim 1 of %s becomes the partition dim and exceeds the %d partitions"
             % (src.shape, current().info["partitions"]))
    out = current().new_tile(src.shape[::-1], _dt.of(dtype) or src.dtype, sbuf, "load_transpose2d", None)
    current().emit("sync", "dma_copy", out, [src.permute((1, 0))])
    return out


def store(dst, value, mask=None):
    """A tile -> HBM (DMA). Triggered from the engine that produced the tile."""
    _no_mask(mask, "nl.store")
    if not isinstance(dst, HbmTensor):
        fail("nl.store writes an HBM tensor, got %r" % (dst,))
    value = _tile(value, "nl.store value")
    if dst.num_elements != value.num_elements or (dst.ndim == value.ndim and dst.shape != _tile_shape(value)):
        fail("nl.store: destination shape %s does not match the tile's %s" % (dst.shape, value.shape))
    prog = current()
    prog.emit(prog.dma_engine(value), "dma_copy", dst, [value])


def static_cast(array, dtype):
    """Beta 1's host-side cast of a NumPy array to an NKI dtype (tests build inputs with it)."""
    import numpy as np
    return np.asarray(array).astype(_dt.of(dtype).np_dtype)


def copy(x, dtype=None, mask=None):
    """A copy of a tile into a new SBUF tile (VectorE), casting to dtype."""
    _no_mask(mask, "copy")
    x = _tile(x, "copy")
    out = _new(_tile_shape(x), _dt.of(dtype) or x.dtype, "copy")
    _copy_into(out, x)
    return out


from .composites import ceil, floor, loop_reduce, trunc, where  # noqa: E402,F401 (they use the helpers above)

checked_calls(globals(), "nl")  # last: a call that does not fit a signature is the kernel's error
