"""nl.floor, nl.ceil, nl.trunc, nl.where and nl.loop_reduce: nki.language functions with no instruction of their own,
lowered to VectorE sequences of the simulator's ALU ops (NKI's compiler, too, builds them from ISA
instructions). Every step is exact in fp32: r = fmod(x, 1) and x - r = trunc(x) are exact, and so is
adding or subtracting 1 from an integer below 2^24."""
from . import dtypes as _dt
from . import language as nl
from .errors import fail
from .program import current


def _fp32_temp(like, label):
    return nl._new(nl._tile_shape(like), _dt.float32, label)


def _neg_trunc(x):
    """-trunc(x) = fmod(x, 1) - x: one scalar_tensor_tensor."""
    t = _fp32_temp(x, "neg_trunc")
    current().emit("vector", "scalar_tensor_tensor", t, [x, x],
                   [("op0", "mod"), ("scalar0", 1.0), ("op1", "subtract")])
    return t


def _round_toward(x, dtype, step_when, op1):
    """trunc(x) stepped by one where fmod(x, 1) `step_when` 0: floor (less, subtract), ceil (greater, add)."""
    x = nl._tile(x, "nl.floor/ceil")
    neg_trunc = _neg_trunc(x)
    step = _fp32_temp(x, "round_step")
    current().emit("vector", "tensor_scalar", step, [x],
                   [("op0", "mod"), ("scalar0", 1.0), ("op1", step_when), ("scalar1", 0.0)])
    out = nl._new(nl._tile_shape(x), _dt.of(dtype) or x.dtype, "round")
    current().emit("vector", "scalar_tensor_tensor", out, [neg_trunc, step],
                   [("op0", "multiply"), ("scalar0", -1.0), ("op1", op1)])
    return out


def floor(x, dtype=None, mask=None):
    """The largest integer <= x, element-wise: three VectorE instructions (-trunc(x); fmod(x, 1) < 0;
    trunc(x) - that)."""
    nl._no_mask(mask, "floor")
    return _round_toward(x, dtype, "less", "subtract")


def ceil(x, dtype=None, mask=None):
    """The smallest integer >= x, element-wise: three VectorE instructions (as floor, stepping up)."""
    nl._no_mask(mask, "ceil")
    return _round_toward(x, dtype, "greater", "add")


def trunc(x, dtype=None, mask=None):
    """x rounded toward zero, element-wise: two VectorE instructions (fmod(x, 1) - x, times -1)."""
    nl._no_mask(mask, "trunc")
    x = nl._tile(x, "nl.trunc")
    out = nl._new(nl._tile_shape(x), _dt.of(dtype) or x.dtype, "trunc")
    current().emit("vector", "tensor_scalar", out, [_neg_trunc(x)], [("op0", "multiply"), ("scalar0", -1.0)])
    return out


def where(condition, x, y, dtype=None, mask=None):
    """x where condition is non-zero, else y (x, y: tiles of condition's shape or numbers): y is
    copied (or memset) into the result, then x copied over it under the predicate
    (tensor_copy_predicated), both on VectorE."""
    nl._no_mask(mask, "where")
    cond = nl._tile(condition, "nl.where condition")
    shape = nl._tile_shape(cond)
    tiles = [v for v in (x, y) if not nl._number(v)]
    out_dtype = _dt.of(dtype) or (_dt.result_type(*(nl._tile(t, "nl.where").dtype for t in tiles)) if tiles
                                  else _dt.float32)
    out = nl._new(shape, out_dtype, "where")
    _fill(out, y, cond, "y")
    on_true = x if not nl._number(x) else _fill(nl._new(shape, out_dtype, "where_x"), x, cond, "x")
    on_true = nl._tile(on_true, "nl.where x")
    _check_like(on_true, cond, "x")
    current().emit("vector", "tensor_copy_predicated", out, [on_true, cond])
    return out


def _fill(dst, value, cond, what):
    if nl._number(value):
        current().emit("vector", "memset", dst, [], [("value", float(value))])
    else:
        value = nl._tile(value, "nl.where " + what)
        _check_like(value, cond, what)
        current().emit("vector", "tensor_copy", dst, [value])
    return dst


def _check_like(t, cond, what):
    if t.partitions != cond.partitions or t.free_elements != cond.free_elements:
        fail("nl.where: %s has shape %s, the condition %s" % (what, t.shape, cond.shape))


class LoopReduce:
    """nl.loop_reduce(x, op, loop_indices)'s value: assigned to a tile view, it is `view = view op x`
    (the destination is op's other operand, as NKI documents), one VectorE tensor_tensor."""

    def __init__(self, x, op, mask):
        self.x, self.op, self.mask = x, op, mask

    def assign_to(self, dst):
        nl._no_mask(self.mask, "nl.loop_reduce")  # the assignment's instruction takes the call's mask=
        nl._binary_into(dst, dst, self.x, self.op)


def loop_reduce(x, op, loop_indices, dtype=None, mask=None):
    """Accumulates x into the tile view it is assigned to (`acc[...] = nl.loop_reduce(x, op=np.add,
    loop_indices=(i,))`); loop_indices only tell NKI's compiler which loops it spans."""
    x = nl._tile(x, "nl.loop_reduce")
    name = {v: k for k, v in nl._ALU.items()}.get(_alu(op))
    if name is None:
        fail("nl.loop_reduce: op %r is not an ALU op (np.add, np.maximum, nl.minimum, ...)" % (op,))
    return LoopReduce(x, name, mask)


def _alu(op):
    from . import isa
    try:
        return isa._ALU.get(nl._as_nl_op(op))
    except TypeError:  # unhashable: not an op
        return None
