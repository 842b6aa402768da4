"""NKI 0.3+ tensor-view methods (`t.ap(...)`, `t.slice(...)`, `t.permute(...)`, ...), mixed into
views.View. Each returns a new view of the same Decl: a list of [stride, size] dims, an element
offset and, on chip, the index of the partition dim (always dim 0 of what `.ap()` builds, as NKI's
NkiTensor keeps it). No data moves; an instruction reads or writes through the view."""
import math
import operator

from . import indirect
from .errors import Unsupported, at, fail, where


def _int(x, what):
    try:
        if isinstance(x, bool):
            raise TypeError
        return operator.index(x)
    except TypeError:
        fail("%s must be an integer, got %r" % (what, x))


def _dim(view, dim, what, extra=0):
    d = _int(dim, "%s dim" % what)
    n = view.ndim + extra
    if not -n <= d < n:
        fail("%s: dim %d out of range for a %d-dim view of shape %s" % (what, d, view.ndim, view.shape))
    return d + n if d < 0 else d


def reach(decl, offset, dims):
    """(last element an access of `dims` from `offset` touches, elements of the tensor): on chip the
    partitions' rows side by side."""
    last = offset + sum(s * (n - 1) for s, n in dims)
    return last, decl.free_size * decl.shape[0] if decl.on_chip else math.prod(decl.shape)


def _within_partition(pattern, offset, free_dims, decl):
    """On chip a free-dim pattern addresses one partition's row: it may not run into the next."""
    last = offset % decl.free_size + sum(s * (n - 1) for s, n in free_dims)
    if last >= decl.free_size:
        fail(".ap(pattern=%r, offset=%d) reaches element %d of a partition of tensor '%s' (%d per partition)"
             % (pattern, offset, last, decl.name, decl.free_size))


class ViewMethods:
    """Mixed into View; `self._like(offset, dims, pdim)` makes a view of the same kind."""

    # ------------------------------------------------------------ attributes NKI code reads
    @property
    def buffer(self):
        return self.decl.buffer

    @property
    def name(self):
        return self.decl.name

    @property
    def size(self):
        return self.num_elements

    @property
    def strides(self):
        return tuple(stride for stride, _ in self.dims)

    def get_pattern(self):
        return [list(d) for d in self.dims]

    def is_contiguous(self):
        stride = 1
        for s, n in reversed(self.dims):
            if n > 1 and s != stride:
                return False
            stride *= n
        return True

    # ------------------------------------------------------------ .ap()
    def ap(self, pattern, offset=0, scalar_offset=None, vector_offset=None, indirect_dim=None, dtype=None):
        """The elements `offset + sum(i_k * stride_k)` of the tensor under this view, for the
        [[stride, size], ...] pattern (on chip the first pair is the partition dim, its stride the
        tensor's free size). Runtime offsets (scalar_offset=, vector_offset=, indirect_dim=) take
        the offset read from SBUF when a DMA runs (indirect.py)."""
        if indirect_dim not in (None, 0) and scalar_offset is None and vector_offset is None:
            fail(".ap(indirect_dim=%r) without scalar_offset= or vector_offset=" % (indirect_dim,))
        self._same_dtype(dtype, ".ap(dtype=...)")
        try:
            dims = [[_int(s, ".ap stride"), _int(n, ".ap size")] for s, n in pattern]
        except (TypeError, ValueError):
            dims = None
        if not dims or any(n <= 0 or s < 0 for s, n in dims):
            fail(".ap(pattern=%r): a list of [stride, size] pairs, strides >= 0, sizes > 0" % (pattern,))
        offset = _int(offset, ".ap offset")
        decl = self.decl
        if decl.on_chip and dims[0][1] == 1:
            dims[0][0] = decl.free_size  # one partition: its step does not matter, the model wants the free size
        if decl.on_chip and dims[0][0] != decl.free_size:
            fail(".ap(pattern=%r): the partition pair's stride must be the tensor's free size %d "
                 "(partition steps other than 1 are not modelled)" % (pattern, decl.free_size), Unsupported)
        last, total = reach(decl, offset, dims)
        outside = offset < 0 or last >= total
        if decl.on_chip and not outside:
            _within_partition(pattern, offset, dims[1:], decl)
        view = indirect.make(self, self._like(offset, dims, 0 if decl.on_chip else None), scalar_offset,
                             vector_offset, indirect_dim)
        if outside:  # an error where an instruction uses it: kernels make views they use only under a condition
            view.outside = (".ap(pattern=%r, offset=%d) reaches element %d of tensor '%s' (%d elements), made at "
                            "%s" % (pattern, offset, last, decl.name, total, at(where())))
        return view

    def _same_dtype(self, dtype, what):
        from . import dtypes
        if dtype is not None and dtypes.of(dtype) is not self.dtype:
            fail("%s: reinterpreting %r as %r is not modelled" % (what, self.dtype, dtype), Unsupported)

    # ------------------------------------------------------------ shape-based views
    def slice(self, dim, start, end, step=1):
        d = _dim(self, dim, "slice")
        return self[tuple([slice(None)] * d + [slice(start, min(end, self.shape[d]), step)])]

    def select(self, dim, index):
        """Drops `dim`, keeping element `index` of it (not the partition dim)."""
        d = _dim(self, dim, "select")
        if d == self.pdim:
            fail("select(dim=%d): the partition dim cannot be dropped; use slice" % d)
        return self[tuple([slice(None)] * d + [_int(index, "select index")])]

    def permute(self, dims):
        order = [_dim(self, d, "permute") for d in dims]
        if sorted(order) != list(range(self.ndim)):
            fail("permute(%r) is not a permutation of the %d dims of shape %s" % (tuple(dims), self.ndim, self.shape))
        pdim = order.index(self.pdim) if self.pdim is not None else None
        if pdim not in (None, 0) and self.pdim == 0:
            fail("permute(%r): the partition dim must stay dim 0" % (tuple(dims),))
        view = self._like(self.offset, [self.dims[i] for i in order], pdim)
        if getattr(self, "valid", None) is not None:  # a slice past a dim stays an error (or mask=) after it
            view.valid = [self.valid[i] for i in order]
        return view

    def broadcast(self, dim, size):
        d = _dim(self, dim, "broadcast")
        if self.dims[d][1] != 1:
            fail("broadcast(dim=%d): only a size-1 dim repeats, this one has size %d" % (d, self.dims[d][1]))
        if d == self.pdim:
            shape = list(self.shape)
            shape[d] = _int(size, "broadcast size")
            return self.broadcast_to(shape)
        dims = [list(x) for x in self.dims]
        dims[d] = [0, _int(size, "broadcast size")]
        return self._like(self.offset, dims, self.pdim)

    def expand_dim(self, dim):
        d = _dim(self, dim, "expand_dim", extra=1)
        dims = [list(x) for x in self.dims]
        dims.insert(d, [1, 1])
        pdim = self.pdim if self.pdim is None or d > self.pdim else self.pdim + 1
        return self._like(self.offset, dims, pdim)

    def squeeze_dim(self, dim):
        d = _dim(self, dim, "squeeze_dim")
        if self.dims[d][1] != 1 or d == self.pdim:
            fail("squeeze_dim(%d): only a size-1 free dim can be removed (shape %s)" % (d, self.shape))
        dims = [x for i, x in enumerate(self.dims) if i != d]
        pdim = self.pdim if self.pdim is None or d > self.pdim else self.pdim - 1
        return self._like(self.offset, dims, pdim)

    def flatten_dims(self, start_dim, end_dim):
        """Merges dims start_dim..end_dim (inclusive) into one; they must be contiguous in memory."""
        a, b = _dim(self, start_dim, "flatten_dims"), _dim(self, end_dim, "flatten_dims")
        if a > b or (self.pdim is not None and a <= self.pdim < b):
            fail("flatten_dims(%d, %d) of shape %s: an increasing range of free dims" % (a, b, self.shape))
        run = self.dims[a:b + 1]
        for (outer, _), (inner, n) in zip(run, run[1:]):
            if outer != inner * n:
                fail("flatten_dims(%d, %d): dims of shape %s are not contiguous" % (a, b, self.shape))
        merged = [run[-1][0], math.prod(n for _, n in run)]
        pdim = self.pdim if self.pdim is None or self.pdim < a else self.pdim - (b - a)
        return self._like(self.offset, self.dims[:a] + [merged] + self.dims[b + 1:], pdim)

    def reshape_dim(self, dim, shape):
        """Splits `dim` into `shape` (row-major)."""
        d = _dim(self, dim, "reshape_dim")
        shape = [_int(s, "reshape_dim size") for s in shape]
        stride, size = self.dims[d]
        if math.prod(shape) != size or d == self.pdim and len(shape) > 1:
            fail("reshape_dim(%d, %r): the sizes must multiply to %d (a free dim)" % (d, tuple(shape), size))
        new, inner = [], stride
        for n in reversed(shape):
            new.insert(0, [inner, n])
            inner *= n
        pdim = self.pdim if self.pdim is None or self.pdim < d else self.pdim + len(shape) - 1
        return self._like(self.offset, self.dims[:d] + new + self.dims[d + 1:], pdim)

    def view(self, dtype):
        """The same elements as another dtype of the same size; reinterpreting sizes is not modelled."""
        self._same_dtype(dtype, "view(dtype)")
        return self

    reinterpret_cast = view

    def rearrange(self, pattern, **sizes):
        """einops-style 'a b c -> a (b c)' over this view's dims (a permutation, splits and merges)."""
        src, arrow, dst = (pattern.partition("->") if isinstance(pattern, str) else ("", "", ""))
        if not arrow:
            fail("rearrange(%r): expected 'dims -> dims'" % (pattern,))
        view, names = self, _groups(src)
        flat = []
        for i, group in reversed(list(enumerate(names))):
            if len(group) > 1:
                known = [sizes.get(g) for g in group]
                if sum(k is None for k in known) > 1:
                    fail("rearrange(%r): give the sizes of %s" % (pattern, group))
                rest = self.shape[i] // math.prod(k for k in known if k is not None)
                view = view.reshape_dim(i, [rest if k is None else k for k in known])
        for group in names:
            flat += group
        if len(flat) != view.ndim:
            fail("rearrange(%r): %d names for %d dims" % (pattern, len(flat), view.ndim))
        out_groups = _groups(dst)
        order = [g for group in out_groups for g in group]
        if sorted(order) != sorted(flat):
            fail("rearrange(%r): both sides must name the same dims" % (pattern,))
        view = view.permute([flat.index(g) for g in order])
        at = 0
        for group in out_groups:
            if len(group) > 1:
                view = view.flatten_dims(at, at + len(group) - 1)
            at += 1
        return view


def _groups(side):
    """'a (b c) d' -> [['a'], ['b', 'c'], ['d']]"""
    groups, current = [], None
    for token in side.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            current = []
        elif token == ")":
            groups.append(current or [])
            current = None
        elif current is not None:
            current.append(token)
        else:
            groups.append([token])
    return groups
