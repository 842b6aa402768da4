"""Tensors and tiles as the kernel sees them, and the access patterns under them.

A `Decl` is one tensor of the emitted kernel (an HBM tensor or one physical
SBUF/PSUM buffer). A `View` is a strided window onto a Decl in the .nk
`.ap(offset, [[stride, size], ...])` form: for on-chip tensors one of its dims
is the partition dim (stride = the decl's free size). `HbmTensor` and `Tile`
are the views kernel code holds; indexing them gives sub-views.
"""
import functools
import math
import operator

from .errors import Unsupported, fail
from .view_methods import ViewMethods


def positive_shape(shape, what):
    """shape as a tuple of positive integers (int subclasses such as nl.par_dim kept, NumPy
    integers converted), or a KernelError naming `what`."""
    try:
        out = tuple(s if isinstance(s, int) else operator.index(s) for s in shape)
    except TypeError:  # not iterable, or an entry that is not an integer (float, str, None, ...)
        out = None
    if not out or any(isinstance(s, bool) or s <= 0 for s in out):
        fail("%s shape must be positive integers, got %r" % (what, shape))
    return out


def _integer(c, op):
    """c as an int (a NumPy integer too; a ProgramIndex keeps its expression), or a KernelError."""
    if isinstance(c, int) and not isinstance(c, bool):
        return c
    try:
        return operator.index(c)
    except TypeError:
        fail("index expressions support %s with integers only (got %r)" % (op, c))


class IndexExpr:
    """`nl.arange` / `nl.mgrid` values: start + step * i for i < size, tagged with
    the axis they index (None until `[:, None]` / `[None, :]` places them)."""

    def __init__(self, start, step, size, axis=None, grid=None):
        self.start, self.step, self.size, self.axis = start, step, size, axis
        self.grid = grid  # nl.mgrid's sizes of every axis: its dense shape (nisa.iota's result shape)

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        axes = [i for i, k in enumerate(key) if k is not None]
        if len(axes) != 1 or not isinstance(key[axes[0]], slice) or key[axes[0]] != slice(None):
            fail("an nl.arange is placed on an axis with [:, None] or [None, :]; got %r" % (key,))
        return IndexExpr(self.start, self.step, self.size, axes[0])

    def _compare(self, op, n):
        from .masks import compare
        return compare(self, op, n)

    def __lt__(self, n): return self._compare("<", n)
    def __le__(self, n): return self._compare("<=", n)
    def __gt__(self, n): return self._compare(">", n)
    def __ge__(self, n): return self._compare(">=", n)

    def _affine(self, mul=1, add=0):
        return IndexExpr(self.start * mul + add, self.step * mul, self.size, self.axis, self.grid)

    def __add__(self, c):
        if isinstance(c, (IndexExpr, IndexSum)):
            return IndexSum([self]) + c
        return self._affine(add=_integer(c, "+"))

    __radd__ = __add__

    def __sub__(self, c):
        return self + (-c)

    def __mul__(self, c):
        c = _integer(c, "*")
        if c == 0:
            fail("index expressions support * by a non-zero integer only (got 0)")
        return self._affine(mul=c)  # a negative c walks the dim backwards (Program._split_reversed)

    __rmul__ = __mul__

    def as_slice(self):
        return slice(self.start, self.start + self.step * (self.size - 1) + 1, self.step)

    def __repr__(self):
        return "%d + %d * nl.arange(%d) on axis %s" % (self.start, self.step, self.size, self.axis)


class IndexSum:
    """A sum of index expressions on different axes (nisa.iota's argument)."""

    def __init__(self, terms, const=0):
        self.terms, self.const = terms, const

    def __add__(self, other):
        if isinstance(other, int):
            return IndexSum(self.terms, self.const + other)
        if isinstance(other, IndexSum):
            return IndexSum(self.terms + other.terms, self.const + other.const)
        return IndexSum(self.terms + [other], self.const)

    __radd__ = __add__

    def __sub__(self, c):
        if not isinstance(c, int) or isinstance(c, bool):
            fail("a sum of index expressions subtracts an integer only (got %r)" % (c,))
        return IndexSum(self.terms, self.const - c)

    def _compare(self, op, other):
        from .masks import compare
        if not isinstance(other, (IndexExpr, IndexSum)):
            fail("mask: a sum of index expressions compares with another index expression (an affine_select "
                 "pred), not with %r" % (other,), Unsupported)
        return compare(self, op, other)

    def __lt__(self, n): return self._compare("<", n)
    def __le__(self, n): return self._compare("<=", n)
    def __gt__(self, n): return self._compare(">", n)
    def __ge__(self, n): return self._compare(">=", n)

    def __repr__(self):
        return " + ".join([repr(t) for t in self.terms] + ([str(self.const)] if self.const else []))


class SumCheck:
    """An index sum (`t[i + j]`) that reaches past dim `dim` (size `size`) unless a mask= cuts it:
    the view's dims `dims` (one per term, `steps` apart in that dim) may reach `budget` elements past
    the sum's first element."""

    def __init__(self, dims, steps, budget, dim, size):
        self.dims, self.steps, self.budget, self.dim, self.size = dims, steps, budget, dim, size

    def reach(self, view):
        return sum(max(0, step * (view.dims[d][1] - 1)) for d, step in zip(self.dims, self.steps))

    def cut(self, starts):
        """The check of the view cut to start at starts[d] on each of its dims (masks.restrict)."""
        shift = sum(step * starts[d] for d, step in zip(self.dims, self.steps))
        return SumCheck(self.dims, self.steps, self.budget - shift, self.dim, self.size)


class Decl:
    """One tensor of the emitted kernel."""

    def __init__(self, name, space, dtype, shape, where=None, buffer=None):
        self.name, self.space, self.dtype, self.shape = name, space, dtype, list(shape)
        self.buffer = buffer or space  # NKI's buffer name: hbm, shared_hbm, private_hbm, sbuf, psum
        self.where = where
        self.owner = None      # the Tile currently living in this buffer (on-chip)
        self.version = 0

    @property
    def on_chip(self):
        return self.space != "hbm"

    @property
    def free_size(self):
        return math.prod(self.shape[1:]) if self.on_chip else math.prod(self.shape)

    @property
    def block_free(self):
        """Free elements of one block: tiles with leading block dims ((B, par_dim(P), F)) are B
        separately tracked blocks; any other tensor is one."""
        return getattr(self, "_block_free", None) or self.free_size

    @block_free.setter
    def block_free(self, n):
        self._block_free = n

    @property
    def bytes_per_partition(self):
        return self.free_size * self.dtype.size


class DynSlice:
    """nl.ds(start, size): `size` elements from `start`, as a subscript."""

    def __init__(self, start, size):
        self.start, self.size = start, size

    def as_slice(self):
        return slice(self.start, self.start + self.size)


class View(ViewMethods):
    """A strided window onto a Decl; `pdim` is the index of the partition dim in `dims` (on-chip)."""

    def __init__(self, decl, offset, dims, pdim=None):
        self.decl, self.offset, self.dims, self.pdim = decl, offset, [list(d) for d in dims], pdim
        self.valid = None  # per dim, how many elements exist when index expressions reach past a dim
        self.axes = None   # per dim, the index-expression axis that made it (mask=), if any
        self.sum_checks = None  # index sums that reach past a dim unless a mask= cuts them (SumCheck)

    # ---------------------------------------------------------- shape
    @functools.cached_property
    def shape(self):
        return tuple(size for _, size in self.dims)

    @property
    def dtype(self):
        return getattr(self.decl, "declared_dtype", None) or self.decl.dtype

    @property
    def ndim(self):
        return len(self.dims)

    @functools.cached_property
    def partitions(self):
        return self.dims[self.pdim][1] if self.pdim is not None else None

    @functools.cached_property
    def free_elements(self):
        return math.prod(s for i, (_, s) in enumerate(self.dims) if i != self.pdim)

    @functools.cached_property
    def num_elements(self):
        return math.prod(self.shape)

    # ---------------------------------------------------------- indexing
    def _modulo_block(self, d, k, size):
        """(k, size) on dim d; on a block dim of a mod_alloc tile (language._modulo_blocks) an index
        is taken modulo the physical blocks, and a slice must stay within one round of them."""
        mod = (getattr(self, "block_mod", None) or [None] * self.ndim)[d]
        if mod is None:
            return k, size
        if isinstance(k, int) and not isinstance(k, bool):
            return (k + size if k < 0 else k) % mod, size
        if isinstance(k, slice) and k.step in (None, 1):
            start, stop = k.start or 0, size if k.stop is None else k.stop
            if 0 <= start < stop <= size and start // mod == (stop - 1) // mod:
                return slice(start % mod, (stop - 1) % mod + 1), size
        fail("dim %d of %s maps its %d blocks modulo %d physical ones (mod_alloc): index it with an integer "
             "or a slice within one round of them, got %r" % (d, self._what(), size, mod, k), Unsupported)

    def _indexed(self, key):
        key = key if isinstance(key, tuple) else (key,)
        if any(k is Ellipsis for k in key):
            i = key.index(Ellipsis)
            key = key[:i] + (slice(None),) * (self.ndim - len(key) + 1) + key[i + 1:]
        if len(key) == 2 and self.ndim == 1 and self.pdim == 0:  # t[:, i] of a [P, F] tile is [P, 1] in Beta 1
            column = self._like(self.offset, self.dims + [[1, 1]], 0)
            indexed = column._indexed(key)
            self._last_valid, self._last_axes = column._last_valid, column._last_axes
            self._last_sum_checks = column._last_sum_checks
            return indexed
        if len(key) > self.ndim:
            fail("%d indices for a %d-dim %s of shape %s" % (len(key), self.ndim, self._what(), self.shape))
        offset, dims, pdim, valid, axes, sum_checks = self.offset, [], None, [], [], []
        limits = self.valid or [s for _, s in self.dims]
        for d, (stride, size) in enumerate(self.dims):
            k = key[d] if d < len(key) else slice(None)
            axis = k.axis if isinstance(k, IndexExpr) else None
            if isinstance(k, IndexExpr) and k.step < 0:  # -1 * i + 1: a reversed dim, as a one-term sum
                k, axis = IndexSum([k]), None
            if isinstance(k, (IndexExpr, DynSlice)):
                k = k.as_slice()
            k, size = self._modulo_block(d, k, size)
            if isinstance(k, int) and not isinstance(k, bool):
                i = k + size if k < 0 else k
                if not 0 <= i < limits[d]:
                    fail("index %d out of bounds for dim %d of %s (size %d)" % (k, d, self._what(), limits[d]))
                offset += i * stride
                if d == self.pdim:  # a partition index keeps a partition dim of size 1
                    pdim = len(dims)
                    dims.append([stride, 1])
                    valid.append(1)
                    axes.append(None)
            elif isinstance(k, slice):
                start, stop, step = k.start, k.stop, k.step
                step = 1 if step is None else step
                if step <= 0:
                    fail("slice step must be positive (dim %d of %s)" % (d, self._what()))
                start = 0 if start is None else (start + size if start < 0 else start)
                stop = size if stop is None else (stop + size if stop < 0 else stop)
                # A slice or index expression may reach past the dim: the call's mask= cuts it back
                # (masks.py), else the call fails (Program._masked); Beta 1 tutorials load partial tiles so.
                # An empty slice within the dim (nl.ds(offset, 0): a core given no rows at LNC=2) is a view
                # of nothing, refused only when an instruction uses it (Program._masked).
                empty = start == stop and 0 <= start <= size
                if not (empty or 0 <= start < stop and (start < size or axis is not None)):
                    fail("slice %d:%d out of bounds for dim %d of %s (size %d)" % (start, stop, d, self._what(), size))
                if d == self.pdim:
                    if step != 1:
                        fail("the partition dim of %s must be sliced contiguously (step 1)" % self._what())
                    pdim = len(dims)
                offset += start * stride
                dims.append([stride * step, (stop - start + step - 1) // step])
                valid.append(max(0, -(-(limits[d] - start) // step)))
                axes.append(axis)
            elif isinstance(k, IndexSum):
                shift, sum_dims, budget = self._index_sum(k, d, stride, limits[d])
                if budget is not None:
                    sum_checks.append(SumCheck(list(range(len(dims), len(dims) + len(sum_dims))),
                                               [s // stride for s, _ in sum_dims], budget, d, limits[d]))
                offset += shift
                dims += sum_dims
                valid += [n for _, n in sum_dims]
                axes += [t.axis for t in sorted(k.terms, key=lambda t: t.axis)]
            elif isinstance(k, View):
                fail("indexing dim %d of %s with a tile (an indirect, runtime-addressed access) is not modelled"
                     % (d, self._what()), Unsupported)
            else:
                fail("unsupported index %r for dim %d of %s (use ints, slices, nl.arange)" % (k, d, self._what()))
        if self.pdim is not None and pdim is None:
            fail("indexing %s dropped its partition dim" % self._what())
        placed = [a for a in axes if a is not None]
        if placed != sorted(placed):
            if None in axes or sorted(placed) != list(range(len(placed))):
                fail("index expressions of %s on axes %s: out of the tensor's dim order, every dim must come "
                     "from an index expression of its own axis (nl.mgrid)" % (self._what(), placed), Unsupported)
            # The access's dims follow the index expressions' axes: out[if_out, ip_out] (Beta 1 SD
            # attention's transposed store), t[w.p, 2 * i + w.y, 2 * w.x + w.z] (select_and_scatter).
            order = sorted(range(len(axes)), key=lambda i: axes[i])
            where_now = {old: new for new, old in enumerate(order)}
            dims, valid, axes = [dims[i] for i in order], [valid[i] for i in order], [axes[i] for i in order]
            pdim = where_now[pdim] if pdim is not None else None
            for c in sum_checks:
                c.dims = [where_now[d] for d in c.dims]
        self._last_valid = valid if any(v < n for v, (_, n) in zip(valid, dims)) else None
        self._last_axes = axes if any(a is not None for a in axes) else None
        self._last_sum_checks = sum_checks or None
        return offset, dims, pdim

    def _index_sum(self, k, d, stride, limit):
        """`t[..., 2 * i + j, ...]` (pooling windows): one dim of the view per term, in axis order; the
        offset the terms' starts and the constant add."""
        if d == self.pdim or any(t.axis is None for t in k.terms) or len({t.axis for t in k.terms}) < len(k.terms):
            fail("a sum of index expressions (i + j) indexing %s (dim %d of %s) needs each term on its own axis "
                 "(nl.mgrid, or nl.arange placed with [:, None]) and a free dim"
                 % ("the partition dim" if d == self.pdim else "one dim", d, self._what()), Unsupported)
        terms = sorted(k.terms, key=lambda t: t.axis)
        first = k.const + sum(t.start for t in terms)
        last = first + sum(max(0, t.step * (t.size - 1)) for t in terms)
        lowest = first + sum(min(0, t.step * (t.size - 1)) for t in terms)  # negative steps walk back
        if lowest < 0 or first >= limit:
            fail("index sum %r reaches elements %d..%d of dim %d of %s (size %d)" % (k, lowest, last, d, self._what(),
                                                                                  limit))
        # Past the dim's end: the call's mask= may cut it back (Program._masked checks what is left).
        budget = limit - 1 - first if last >= limit else None
        return first * stride, [[stride * t.step, t.size] for t in terms], budget

    def _sub(self, view):
        """view, a window of self just made by _indexed, with what it reaches past (mask=) and the
        axes its index expressions came from."""
        view.valid, view.axes = self._last_valid, self._last_axes
        view.sum_checks = self._last_sum_checks
        return view

    def _what(self):
        return "tensor '%s'" % self.decl.name

    def units(self, group=1):
        """The dependency units this view touches: the blocks of a blocked tile, `group` blocks per
        unit, else the tensor."""
        d = self.decl
        if not d.on_chip or d.block_free * group >= d.free_size:
            return [d.name]
        f0 = self.offset % d.free_size
        f1 = f0 + sum(stride * (size - 1) for i, (stride, size) in enumerate(self.dims) if i != self.pdim)
        size = d.block_free * group
        return ["%s_k%d" % (d.name, b) for b in range(f0 // size, f1 // size + 1)]

    # ---------------------------------------------------------- text
    def ap_text(self):
        """The .nk access pattern: partition pair first for on-chip tensors."""
        dims = self.dims
        if self.pdim is not None:
            dims = [dims[self.pdim]] + [d for i, d in enumerate(dims) if i != self.pdim]
        dims = [d for i, d in enumerate(dims) if d[1] != 1 or (self.pdim is not None and i == 0)] or [[1, 1]]
        # An offset computed from nl.program_id is written as its expression (spmd.py).
        offset = getattr(self.offset, "expr", None) or "%d" % self.offset
        return "%s.ap(%s, [%s])" % (self.decl.name, offset,
                                    ", ".join("[%d, %d]" % (s, n) for s, n in dims))


class HbmTensor(View):
    """A tensor in device memory (a kernel argument, or nl.ndarray in hbm/shared_hbm)."""

    def __init__(self, decl, offset=0, dims=None):
        if dims is None:
            dims, stride = [], 1
            for size in reversed(decl.shape):
                dims.insert(0, [stride, size])
                stride *= size
        super().__init__(decl, offset, dims)

    def __getitem__(self, key):
        offset, dims, _ = self._indexed(key)
        return self._sub(HbmTensor(self.decl, offset, dims))

    def _like(self, offset, dims, pdim):
        if getattr(self, "indirect", None) is not None:  # its runtime offset would be lost
            fail("a view of %s with a runtime offset (.ap(scalar_offset=/vector_offset=)) cannot be sliced, "
                 "permuted or reshaped; give the whole access in .ap()" % self._what(), Unsupported)
        return HbmTensor(self.decl, offset, dims)

    def __setitem__(self, key, value):
        fail("assigning to an HBM tensor: write it with nl.store(%s[...], value=tile)" % self.decl.name)

    def reshape(self, shape):
        """The same elements in another row-major shape (the view must be contiguous)."""
        shape = positive_shape(shape, "reshape of %s:" % self._what())
        if math.prod(shape) != self.num_elements:
            fail("cannot reshape %s of shape %s to %s" % (self._what(), self.shape, shape))
        stride = 1
        for s, n in reversed(self.dims):
            if n > 1 and s != stride:
                fail("reshape of a non-contiguous view of %s" % self._what())
            stride *= n
        dims, stride = [], 1
        for n in reversed(shape):
            dims.insert(0, [stride, n])
            stride *= n
        return HbmTensor(self.decl, self.offset, dims)

    def broadcast_to(self, shape):
        """Repeats size-1 dims (stride 0), e.g. a [1, N] row to [128, N] for a broadcast load."""
        return HbmTensor(self.decl, self.offset, _broadcast_dims(self, shape))

    def __repr__(self):
        return "HbmTensor(%s, shape=%s, %r)" % (self.decl.name, self.shape, self.dtype)


class Tile(View):
    """An SBUF or PSUM tile (or a window of one). Lives while its buffer holds it."""

    def __init__(self, decl, offset, dims, pdim, owner=None):
        super().__init__(decl, offset, dims, pdim)
        self.owner = owner if owner is not None else self  # the whole tile this view belongs to
        # A window of a tile whose buffer was reused is as stale as the tile (Program._check_live).
        self.version = owner.version if owner is not None else decl.version

    def _what(self):
        return "tile '%s'" % self.decl.name

    # On the whole tile (owner) only: the free spans instructions wrote since it was allocated.
    written_spans = ()

    @property
    def written(self):
        return bool(self.written_spans)

    def mark_written(self, view):
        """Notes that an instruction wrote `view` of this (whole) tile."""
        if not self.written_spans:
            self.written_spans = []
        self.written_spans.append(_free_span(view))

    def region_written(self, view):
        """Whether some instruction wrote elements of `view`'s free span since this tile was allocated
        (a PSUM region a matmul would accumulate into; other regions start a new group)."""
        lo, hi = _free_span(view)
        return any(a < hi and lo < b for a, b in self.written_spans)

    def __getitem__(self, key):
        offset, dims, pdim = self._indexed(key)
        return self._sub(Tile(self.decl, offset, dims, pdim, self.owner))

    def _like(self, offset, dims, pdim):
        return Tile(self.decl, offset, dims, pdim, self.owner)

    def __setitem__(self, key, value):
        from . import program
        program.current().assign(self[key], value)

    def reshape(self, shape):
        """The same elements in another shape whose first dim is the partition dim (the free
        elements contiguous, taken row-major): the NKI Library's [B, S * V] <-> [B, S, V] views."""
        shape = positive_shape(shape, "reshape of %s:" % self._what())
        if self.pdim != 0 or shape[0] != self.partitions or math.prod(shape[1:]) != self.free_elements:
            fail("cannot reshape %s of shape %s to %s: keep the partition dim first and the free elements"
                 % (self._what(), self.shape, tuple(shape)))
        stride = 1
        for s, n in reversed(self.dims[1:]):
            if n > 1 and s != stride:
                fail("reshape of a non-contiguous view of %s" % self._what())
            stride *= n
        dims, stride = [], 1
        for n in reversed(shape[1:]):
            dims.insert(0, [stride, n])
            stride *= n
        return self._like(self.offset, [self.dims[0]] + dims, 0)

    def broadcast_to(self, shape):
        """Repeats size-1 free dims (stride 0). A one-partition tile broadcast across partitions
        becomes a new tile, filled on TensorE (language._partition_broadcast)."""
        tile = self
        if self.ndim == 1 and self.pdim == 0 and len(shape) == 2:  # t[ip, 0]: a [P] column is [P, 1]
            tile = Tile(self.decl, self.offset, self.dims + [[1, 1]], 0, self.owner)
        if len(shape) == tile.ndim and shape[tile.pdim] != tile.partitions:
            from . import language
            tile = language._partition_broadcast(tile, shape[tile.pdim])
        return Tile(tile.decl, tile.offset, _broadcast_dims(tile, shape), tile.pdim, tile.owner)

    def __iadd__(self, value):
        from . import program
        program.current().accumulate(self, value)
        return self

    # Arithmetic operators lower like the nl functions.
    def _binary(self, name, other, reverse=False):
        from . import language as nl
        a, b = (other, self) if reverse else (self, other)
        return getattr(nl, name)(a, b)

    def __add__(self, o): return self._binary("add", o)
    def __radd__(self, o): return self._binary("add", o, True)
    def __sub__(self, o): return self._binary("subtract", o)
    def __rsub__(self, o): return self._binary("subtract", o, True)
    def __mul__(self, o): return self._binary("multiply", o)
    def __rmul__(self, o): return self._binary("multiply", o, True)
    def __truediv__(self, o): return self._binary("divide", o)
    def __rtruediv__(self, o): return self._binary("divide", o, True)
    def __pow__(self, o): return self._binary("power", o)
    def __neg__(self): return self._binary("multiply", -1.0)

    def __array__(self, *args, **kwargs):
        fail("%s has no values while the kernel is traced: NumPy can take tiles only through ufuncs "
             "(np.add, np.exp, ...)" % self._what(), Unsupported)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """np.multiply(a, b), np.exp(t), ... on tiles lower like the nl functions (Beta 1 kernels)."""
        from . import language as nl
        fn = nl._numpy_ufuncs().get(ufunc) if method == "__call__" else None
        if fn is None or set(kwargs) - {"dtype"}:
            fail("np.%s%s on a tile is not supported (supported: %s)" % (
                ufunc.__name__, "" if method == "__call__" else "." + method,
                ", ".join(sorted("np." + u.__name__ for u in nl._numpy_ufuncs()))), Unsupported)
        return fn(*inputs, **kwargs)

    def __repr__(self):
        return "Tile(%s, shape=%s, %r, %s)" % (self.decl.name, self.shape, self.dtype, self.decl.space)


def _broadcast_dims(view, shape):
    shape = tuple(shape)
    if len(shape) != view.ndim:
        fail("broadcast_to %s: needs %d dims like %s" % (shape, view.ndim, view.shape))
    dims = []
    for (stride, size), n in zip(view.dims, shape):
        if size != n and size != 1:
            fail("cannot broadcast %s to %s: only size-1 dims repeat" % (view.shape, shape))
        dims.append([stride if size == n else 0, n])
    return dims


def _free_span(view):
    """[lo, hi) of the free offsets (within each partition) `view` touches; the whole partition row when
    a step is negative or zero-sized views make it unclear."""
    row = view.decl.free_size
    free = [(stride, size) for i, (stride, size) in enumerate(view.dims) if i != view.pdim]
    if any(stride < 0 for stride, _ in free) or any(size <= 0 for _, size in free):
        return 0, row
    lo = view.offset % row
    return lo, lo + 1 + sum((size - 1) * stride for stride, size in free)
