"""Reads of a value another tile wrote over: an error at the kernel's line (issue 24 item 8).

AWS's functional simulator gives every tile memory of its own, so a kernel whose own placements
(address=, ncc.*.mod_alloc(base_addr=/base_bank=), alloc callbacks) make two live tiles share bytes
computes there what it meant, and on hardware something else: the bytes hold what the later write
put there. Here the tiles sit where the kernel placed them (passes/liveness.py), and the semaphores
keep program order on shared bytes, so a read sees the last write to its bytes in program order. A
read of tile X whose bytes some other tile Y wrote after X's own last write reads Y's data: that
read is refused, naming X's write and Y's write. Tiles the liveness pass made share bytes never
trip it (it shares only values never live together), so it also guards that pass.

Accesses are compared by their hulls (partitions, bytes per partition), never by the whole tiles:
a read of bytes of X that Y's write did not reach is no clobber."""
from .errors import KernelError


def check(program):
    """Raises KernelError at the first read of a clobbered value; a kernel with no tiles sharing bytes
    is not walked."""
    shared = _sharing(program)
    if not shared:
        return
    last = {}  # tile name -> (instruction index, instruction, hull) of its latest write
    for index, ins in enumerate(program.instrs):
        if ins.removed:
            continue
        for v in ins.reads:
            name = v.decl.name
            if name not in shared:
                continue
            mine, read = last.get(name), _hull(v)
            for other in shared[name]:
                theirs = last.get(other)
                if theirs and (mine is None or theirs[0] > mine[0]) and _meet(theirs[2], read):
                    raise KernelError(_message(name, mine, other, theirs), ins.where)
        for v in ins.writes:
            if v.decl.name in shared:
                last[v.decl.name] = (index, ins, _hull(v))


def _sharing(program):
    """{tile: tiles whose bytes overlap its own} for the on-chip tiles given a place (decl.at)."""
    placed = [d for d in program.used_decls() if d.on_chip and getattr(d, "at", None) is not None]
    out = {}
    for i, a in enumerate(placed):
        for b in placed[i + 1:]:
            if a.space == b.space and a.at < b.at + b.bytes_per_partition and b.at < a.at + a.bytes_per_partition:
                out.setdefault(a.name, set()).add(b.name)
                out.setdefault(b.name, set()).add(a.name)
    return out


def _hull(v):
    """(first partition, last partition, first byte, end byte) of the bytes view v touches, the bytes
    counted from the start of its space (decl.at)."""
    d = v.decl
    row, first = divmod(int(v.offset), d.free_size)
    partitions = v.dims[v.pdim][1] if v.pdim is not None else 1
    last = first + sum(stride * (n - 1) for i, (stride, n) in enumerate(v.dims) if i != v.pdim)
    size = d.dtype.size
    return row, row + partitions - 1, d.at + first * size, d.at + (last + 1) * size


def _meet(a, b):
    return a[0] <= b[1] and b[0] <= a[1] and a[2] < b[3] and b[2] < a[3]


def _message(name, mine, other, theirs):
    own = " (written at line %d)" % mine[1].where[1] if mine and mine[1].where else ""
    by = "line %d" % theirs[1].where[1] if theirs[1].where else "a later instruction"
    return ("tile %s%s is read here, but %s since wrote tile %s over its bytes (the kernel placed both: "
            "address=, mod_alloc or an alloc callback): on hardware this read gets %s's data; place the two "
            "tiles apart or finish reading %s first" % (name, own, by, other, other, name))
