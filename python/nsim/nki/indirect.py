"""Runtime DMA addressing: `.ap(scalar_offset=, vector_offset=, indirect_dim=)` on an HBM tensor, and
the `dma_indirect` instruction a `nisa.dma_copy` through such a view becomes.

NKI (nki-aps, nki.isa.dma_copy): the offset is read from SBUF when the DMA runs, in elements of the
tensor's dim `indirect_dim`. scalar_offset (one value) moves the whole access by value x that dim's
stride; vector_offset (one value per row of the access's first dim) moves row i by value[i] x the
stride, in place of the first dim's own step (a gather, or a scatter when the view is the dst). The
model reads the values from simulated memory when the transfer runs (sim/isa/control_ops.cc)."""
from . import dtypes as _dt
from .errors import Unsupported, fail

class Indirect:
    """The runtime part of a view: the SBUF values and the element stride each one counts."""

    def __init__(self, index, stride, vector):
        self.index, self.stride, self.vector = index, stride, vector


def _is_index_type(dtype):
    return dtype is _dt.int32 or dtype is _dt.uint32


def make(view, result, scalar_offset, vector_offset, indirect_dim):
    """Marks `result` (view.ap(...)'s static part) as addressed at run time; returns it."""
    if scalar_offset is None and vector_offset is None:
        return result
    if scalar_offset is not None and vector_offset is not None:
        fail(".ap(): at most one of scalar_offset= and vector_offset= (nki-aps)")
    if view.decl.on_chip:
        fail(".ap(scalar_offset=/vector_offset=) on the on-chip tensor '%s': only runtime HBM addresses are "
             "modelled" % view.decl.name, Unsupported)
    what = "scalar_offset" if scalar_offset is not None else "vector_offset"
    index = _index(scalar_offset if scalar_offset is not None else vector_offset, what)
    d = indirect_dim if indirect_dim is not None else 0
    if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d < view.ndim:
        fail(".ap(indirect_dim=%r): a dim of the %d-dim view %s" % (indirect_dim, view.ndim, view.shape))
    stride = view.dims[d][0]
    rows = result.dims[0][1]
    vector = vector_offset is not None
    if vector and index.num_elements != rows:
        fail(".ap(vector_offset=...): %d values for the %d rows of the pattern's first dim"
             % (index.num_elements, rows))
    if not vector and index.num_elements != 1:
        fail(".ap(scalar_offset=...): one value, got a tile of %d" % index.num_elements)
    if vector:  # row i starts at value[i] x stride: the first dim's own step does not count
        result.dims[0][0] = 0
    result.indirect = Indirect(index, stride, vector)
    return result


def _index(value, what):
    from .views import Tile
    if not isinstance(value, Tile):
        fail(".ap(%s=%r): the offset must be an SBUF tile (or a view of one) of int32/uint32 values"
             % (what, value), Unsupported)
    if not _is_index_type(value.dtype):
        fail(".ap(%s=...): tile '%s' is %s; runtime offsets are int32 or uint32" % (what, value.decl.name,
                                                                                     value.dtype))
    return value


def of(view):
    return getattr(view, "indirect", None)


def check_not_indirect(opcode, views):
    """Only a DMA reads or writes through a runtime address (DGE, S9)."""
    for v in views:
        if of(v) is not None:
            fail("%s: a view with a runtime offset (.ap(scalar_offset=/vector_offset=)) is a DMA operand only "
                 "(nisa.dma_copy)" % opcode)


def emit_dma(prog, engine, dst, src, oob_mode, queue_attrs):
    """dst = src with dst or src addressed at run time: one dma_indirect (index read by the transfer)."""
    di, si = of(dst), of(src)
    if di is not None and si is not None:
        fail("nisa.dma_copy: runtime offsets on both dst and src are not modelled", Unsupported)
    ind = di or si
    attrs = list(queue_attrs) + [("stride", ind.stride)]
    if di is not None:
        attrs.append(("scatter", True))
    if getattr(oob_mode, "name", oob_mode) == "skip":
        attrs.append(("skip", True))
    return prog.emit(engine, "dma_indirect", dst, [src, ind.index], attrs)
