"""Views with a reversed dim (a negative stride: `t[i_y + (-1 * i_x + 1)]`, Beta 1's interpolation
kernels). The simulator's access patterns have positive strides only, so an element-wise instruction
with such an operand is emitted once per index of that dim (each one a dim of size 1, whose stride
does not matter), with every operand of that size on that dim cut alike: the same elements meet as
in the one instruction, at the cost of one instruction per index."""
from .errors import Unsupported, fail

# Element-wise opcodes: element k of every operand pairs with element k of the others.
_ELEMENTWISE = ("tensor_tensor", "tensor_scalar", "tensor_copy", "activation", "scalar_tensor_tensor", "memset",
                "dma_copy", "dma_transpose", "tensor_copy_predicated")


def _reversed_dim(views):
    for v in views:
        for d, (stride, size) in enumerate(v.dims):
            if stride < 0 and size > 1:
                return v, d
    return None, None


def _cut(view, d, k):
    """view at index k of dim d (a dim of size 1, stride 1)."""
    stride, _ = view.dims[d]
    dims = [list(x) for x in view.dims]
    dims[d] = [1, 1]
    out = view._like(view.offset + stride * k, dims, view.pdim)
    out.version = getattr(view, "version", None)
    return out


def split(opcode, dst, srcs, attrs, writes):
    """[(dst, srcs, attrs, writes)]: the one instruction, or one per index of each reversed dim."""
    views = ([dst] if dst is not None else []) + list(srcs) + [v for _, v in attrs if hasattr(v, "decl")]
    rev, d = _reversed_dim(views)
    if rev is None:
        return [(dst, srcs, attrs, writes)]
    n = rev.dims[d][1]
    if opcode not in _ELEMENTWISE or writes:
        fail("%s with a reversed index (a negative step on dim %d of '%s') is not modelled: only element-wise "
             "instructions take one" % (opcode, d, rev.decl.name), Unsupported)

    def cut(v, k):
        if v is None or not hasattr(v, "decl") or v.ndim != rev.ndim or v.dims[d][1] == 1:
            return v
        if v.dims[d][1] != n:
            fail("%s: operand '%s' has %d elements on dim %d, the reversed operand '%s' %d"
                 % (opcode, v.decl.name, v.dims[d][1], d, rev.decl.name, n))
        return _cut(v, d, k)

    out = []
    for k in range(n):
        sub_dst = cut(dst, k)
        out += split(opcode, sub_dst, [cut(s, k) for s in srcs], [(a, cut(v, k)) for a, v in attrs],
                     [sub_dst if w is dst else w for w in writes])
    return out
