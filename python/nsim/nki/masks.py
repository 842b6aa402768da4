"""Beta 1 `mask=`: a predicate on index expressions that limits an instruction to part of its tile.

`i * 128 + ix < n` (ix = nl.arange(128)[:, None]) keeps the iterations k of that index expression
with start + step * k < n: a range of k on the expression's axis (0: partitions, 1: free). Every
operand of the masked call is cut to those ranges on the dim of that axis, so a masked load of the
last, partial row tile reads only the rows that exist. Predicates are comparisons of one index
expression with an integer, combined with `&`.
"""
from .errors import Unsupported, fail


class Mask:
    """{axis: (lo, hi)}: iterations lo <= k < hi of the index expressions on that axis."""

    def __init__(self, ranges, skip=False):
        self.ranges = ranges
        self.skip = skip  # mask=False: the call does nothing

    def __and__(self, other):
        if isinstance(other, bool) or type(other).__name__ == "bool_":  # a condition Python already decided
            return self if other else Mask(self.ranges, skip=True)
        if not isinstance(other, Mask):
            fail("mask: & combines comparisons of index expressions, got %r" % (other,))
        ranges = dict(self.ranges)
        for axis, (lo, hi) in other.ranges.items():
            a, b = ranges.get(axis, (lo, hi))
            ranges[axis] = (max(a, lo), min(b, hi))
        return Mask(ranges, self.skip or other.skip)

    __rand__ = __and__

    def __bool__(self):
        fail("a mask (a comparison of index expressions) has no truth value at trace time: pass it as mask=")


class AffinePredicate:
    """Beta 1's affine_select predicate `lhs op rhs` of index expressions (q_pos >= k_pos), held as
    (const + sum(coeffs[axis] * k_axis)) op 0, k_axis the iteration of that axis' expression."""

    def __init__(self, coeffs, const, op):
        self.coeffs, self.const, self.op = coeffs, const, op

    def __and__(self, other):
        fail("a comparison of two index expressions is an affine_select predicate (pred=); it cannot be "
             "combined with & into a mask", Unsupported)

    __rand__ = __and__

    def __repr__(self):
        terms = " + ".join(["%d" % self.const] + ["%d * i%d" % (c, a) for a, c in sorted(self.coeffs.items())])
        return "(%s) %s 0" % (terms, self.op)

    def __bool__(self):
        fail("a comparison of two index expressions has no truth value at trace time: pass it as "
             "nisa.affine_select(pred=...)")


def _linear(expr, sign, coeffs):
    """Adds sign * expr's terms to coeffs {axis: coefficient}; returns sign * its constant."""
    from .views import IndexSum
    terms, const = (expr.terms, expr.const) if isinstance(expr, IndexSum) else ([expr], 0)
    for t in terms:
        if t.axis is None:
            fail("affine_select pred: place each index expression on an axis ([:, None] or [None, :])")
        coeffs[t.axis] = coeffs.get(t.axis, 0) + sign * t.step
        const += t.start
    return sign * const


def _affine_predicate(lhs, op, rhs):
    coeffs = {}
    const = _linear(lhs, 1, coeffs) + _linear(rhs, -1, coeffs)
    return AffinePredicate(coeffs, const, op)


def compare(expr, op, n):
    """The Mask of `expr op n` for an nl.arange expression expr and an integer n; the AffinePredicate
    of it when n is an index expression too."""
    from .views import IndexExpr, IndexSum
    if isinstance(n, (IndexExpr, IndexSum)):
        return _affine_predicate(expr, op, n)
    if isinstance(n, bool) or not isinstance(n, int):
        fail("mask: an index expression compares with an integer, got %r" % (n,), Unsupported)
    if expr.axis is None:
        fail("mask: place the index expression on an axis ([:, None] or [None, :]) before comparing it")
    if expr.step < 0:
        fail("mask: a comparison of a reversed index expression (negative step) is not supported", Unsupported)
    if op in ("<=", ">"):
        n, op = n + 1, {"<=": "<", ">": ">="}[op]
    bound = max(0, min(expr.size, -(-(n - expr.start) // expr.step)))  # first k with start + step*k >= n
    return Mask({expr.axis: (0, bound) if op == "<" else (bound, expr.size)})


def _axis_dim(view, axis):
    """The dim of `view` the mask's axis restricts: the dim an index expression of that axis made,
    else the partition dim (axis 0), the last free dim (axis 1 of a 2-D view) or dim `axis`; None
    when the view has no dim of that axis."""
    axes = getattr(view, "axes", None)
    if axes and axis in axes:
        return axes.index(axis)
    if axis == 0:
        return view.pdim if view.pdim is not None else 0
    if axes and None not in axes:  # every dim's axis is known, none is this one: nothing to cut
        return None
    free = [d for d in range(view.ndim) if d != view.pdim]
    if not free:  # a [P] column: nothing of a free axis to cut
        return None
    return free[-1] if view.ndim <= 2 or axis >= view.ndim else axis


def restrict(view, mask):
    """view cut to the mask's ranges (dims of size 1 are broadcast operands: left whole)."""
    key = [slice(None)] * view.ndim
    for axis, (lo, hi) in mask.ranges.items():
        d = _axis_dim(view, axis)
        if d is None or view.dims[d][1] == 1:
            continue
        size = view.dims[d][1]
        if hi <= lo:
            fail("mask=: no iteration is left on axis %d (the masked call would do nothing)" % axis)
        key[d] = slice(lo, min(hi, size))
    out = view[tuple(key)]
    starts = [k.start or 0 for k in key]
    out.sum_checks = [c.cut(starts) for c in getattr(view, "sum_checks", None) or []] or None
    return out
