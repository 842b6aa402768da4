"""Liveness: tiles whose values are never live at the same time share SBUF (PSUM) bytes, as the
Neuron compiler's allocator reuses the memory of a tile once its last reader is done.

A value is one tile written into a buffer (a buffer holds a new value each time its allocation site
makes a tile there); it lives from the first instruction that touches it to the last one, in the
order the kernel issues them. Two buffers interfere when some value of one is live while a value of
the other is (an instruction reading one and writing the other counts as both live), and the N
buffers one allocation site rotates over always interfere: they exist so that consecutive
iterations overlap. Buffers that never interfere may take the
same bytes: first fit, in the order the buffers are first used, at the layout rule's alignment
(SBUF 64 B; PSUM whole banks, as allocation.py counts them). Tensors that end up sharing bytes form
one memory for the semaphores (dependencies.py orders every access to it), so reuse waits for the
last reader of the bytes' previous value, and the .nk text places each tensor with at=.

When it applies: only when the buffers do not fit side by side after buffer_rule's shrink (a kernel
that fits keeps every buffer apart: nothing has to wait for a reuse). The layernorm tutorial at
4096 x 8192 fp32 (its six [128, 8192] temporaries per row tile are 192 KiB of a 192 KiB SBUF) and the
other published kernels the Neuron compiler ran but that did not fit here are why (issue: SBUF over
capacity because every tile kept its buffer for the whole kernel).
With the pass off (passes={"liveness": False}) such a kernel is an SBUF/PSUM capacity error.

Buffers the kernel placed itself (`address=(partition, byte)`, `ncc.*.mod_alloc(base_addr=/base_bank=)`,
an `ncc.*.alloc` callback giving its blocks consecutive places) keep exactly those bytes, whether or
not everything fits side by side, and may overlap each other as the kernel chose (semaphores order
the accesses, as for shared bytes); the other buffers are placed around them: apart from all of them,
or by liveness when that does not fit."""
import heapq

from ..allocation import capacity, footprint, used

SBUF_ALIGNMENT = 64  # bytes: the loader's SBUF alignment (sim/memory/onchip_layout.h)


def fits(program):
    """Whether SBUF and PSUM hold the program's buffers, side by side or (with the pass on) sharing bytes."""
    for space in ("sbuf", "psum"):
        if used(program, space) <= capacity(space, program.info) and not _placed(program, space):
            continue
        if _plan(program, space) is None:
            return False
    return True


def _plan(program, space):
    """(decls, sizes, offsets) of a layout that fits, or None: the kernel's own placements fixed, the
    other buffers apart from everything, else (pass on) apart from what they are live together with."""
    side_by_side = used(program, space) <= capacity(space, program.info)
    if side_by_side or _placed(program, space):
        packed = _pack(program, space, share=False)
        if _extent(*packed) <= capacity(space, program.info):
            return packed
    if not program.pipeline.on("liveness"):
        return None
    packed = _pack(program, space, share=True)
    return packed if _extent(*packed) <= capacity(space, program.info) else None


def _pack(program, space, share):
    decls = [d for d in program.used_decls() if d.space == space]
    sizes = {d.name: _size(d, program.info, space) for d in decls}
    unit = 1 if space == "psum" else SBUF_ALIGNMENT
    conflicts = None
    if share:
        conflicts = _interference(program.instrs, space)
        _rotations_apart(program, conflicts)
    fixed = {d.name: _fixed_offset(d, program.info) for d in decls}
    fixed = {name: at for name, at in fixed.items() if at is not None}
    for d in decls:
        if d.name in fixed and space == "sbuf":
            sizes[d.name] = d.bytes_per_partition  # its exact bytes: a kernel may pack tiles unaligned
    return decls, sizes, _first_fit(decls, sizes, conflicts, unit, fixed)


def run(pipeline, program):
    """Places the on-chip buffers of every space that does not fit side by side, or that holds buffers
    the kernel placed itself; returns the spaces placed."""
    packed = []
    for space in ("sbuf", "psum"):
        side_by_side = used(program, space) <= capacity(space, program.info)
        placed = _placed(program, space)
        if side_by_side and not placed:
            continue
        if not side_by_side and not pipeline.on("liveness"):
            pipeline.decide("liveness", "%s buffers" % space, "kept apart", pipeline.why_off["liveness"])
        plan = _plan(program, space)
        if plan is None:
            continue  # allocation.check_capacity says where it overflows
        decls, sizes, offsets = plan
        for d in decls:
            if getattr(d, "address", None) is not None and d.name not in placed:
                pipeline.decide("liveness", "%s tile %s" % (space, d.name), "placed by the model",
                                "its placement %r (a start partition other than 0, or blocks not side by "
                                "side) cannot be kept" % (d.address,))
        bank = program.info["psum_bank_bytes"]
        for d in decls:
            d.at = _fixed_bytes(d, bank) if d.name in placed else offsets[d.name] * (bank if space == "psum" else 1)
        _name_shared_memories(program, decls, offsets, sizes)
        packed.append(space)
        shared = sum(1 for d in decls if getattr(d, "memory", None))
        pipeline.decide("liveness", "%s buffers" % space,
                        "%d buffers in %d %s (of %d)" % (len(decls), _extent(decls, sizes, offsets),
                                                          "banks" if space == "psum" else "B per partition",
                                                          capacity(space, program.info)),
                        "%d placed by the kernel; side by side they need %d; %d buffers share bytes"
                        % (len(placed), used(program, space), shared))
    return packed


def _placed(program, space):
    """Names of the used buffers of `space` the kernel placed itself."""
    return {d.name for d in program.used_decls() if d.space == space and _fixed_offset(d, program.info) is not None}


def _fixed_bytes(decl, bank_bytes):
    """The byte offset (per partition; PSUM: from bank 0) the kernel gave this buffer, or None when it
    gave none the layout can keep (a start partition other than 0, blocks not side by side)."""
    address = getattr(decl, "address", None)
    if address is None:
        return None
    if isinstance(address, int):                       # mod_alloc(base_addr=B): SBUF bytes
        at = address
    elif address[0] == "bank":                         # mod_alloc(base_bank=b)
        at = address[1] * bank_bytes
    elif isinstance(address, list):                    # an ncc.*.alloc callback: one place per block
        firsts = [(p[0] * bank_bytes + p[2], p[1]) if len(p) == 3 else (p[1], p[0]) for p in address]
        block = decl.block_free * decl.dtype.size
        if any(part != 0 or at != firsts[0][0] + i * block for i, (at, part) in enumerate(firsts)):
            return None
        at = firsts[0][0]
    else:                                              # address=(start_partition, byte)
        if address[0] != 0:
            return None
        at = address[1]
    slot = getattr(decl, "slot", None)                 # mod_alloc rotating over num_free_tiles buffers
    return at + (slot or 0) * decl.bytes_per_partition


def _fixed_offset(decl, info):
    """_fixed_bytes in the packing's units: bytes (SBUF), banks (PSUM)."""
    at = _fixed_bytes(decl, info["psum_bank_bytes"])
    if at is None or decl.space == "sbuf":
        return at
    return at // info["psum_bank_bytes"]


def _size(decl, info, space):
    """Bytes per partition (SBUF, aligned) or banks (PSUM) of one buffer."""
    n = footprint(decl, info)
    return -(-n // SBUF_ALIGNMENT) * SBUF_ALIGNMENT if space == "sbuf" else n


def _values(instrs, space):
    """{(buffer name, value number): [first, last] instruction index} of the buffers of `space`.
    A tile nothing writes before it is read holds the buffer's last written value: LICM removed
    its write as a repeat of the one it kept (an nisa.iota in a loop), so its reads extend that
    value's life."""
    live, written, last = {}, set(), {}
    for i, ins in enumerate(instrs):
        for v in ins.operands + ins.reads + ins.writes + [a for _, a in ins.attrs if hasattr(a, "decl")]:
            if v.decl.space != space:
                continue
            name, version = v.decl.name, getattr(v, "version", 0)
            if any(v is w for w in ins.writes):
                written.add((name, version))
                last[name] = version
            elif (name, version) not in written and name in last:
                version = last[name]
            key = (name, version)
            span = live.get(key)
            if span is None:
                live[key] = [i, i]
            else:
                span[1] = i
    return live


def _interference(instrs, space):
    """{buffer: set of buffers some value of which is live together with one of its own}."""
    values = sorted((span[0], span[1], name) for (name, _), span in _values(instrs, space).items())
    conflicts, active = {}, []  # active: heap of (last, name) of values started and not yet ended
    for first, last, name in values:
        while active and active[0][0] < first:
            heapq.heappop(active)
        mine = conflicts.setdefault(name, set())
        for _, other in active:
            if other != name:
                mine.add(other)
                conflicts.setdefault(other, set()).add(name)
        heapq.heappush(active, (last, name))
    return conflicts


def _rotations_apart(program, conflicts):
    """The N buffers one allocation site rotates over (buffer_rule, num_buffers=) stay N memories:
    they exist so that consecutive iterations overlap, which sharing bytes would undo. A site outside
    loops gives each tile a buffer of its own (n = 0): those rotate over nothing and may share."""
    for site in program.sites():
        if (site.get("n") or 0) <= 1:
            continue
        names = [d.name for d in site["decls"]]
        for name in names:
            conflicts.setdefault(name, set()).update(n for n in names if n != name)


def _first_fit(decls, sizes, conflicts, unit, fixed):
    """{buffer: offset}: the kernel's own placements (`fixed`), then each other buffer, in the order of
    first use, at the lowest offset (a multiple of `unit`) clear of every placed buffer it interferes
    with (conflicts None: of every placed buffer)."""
    offsets = dict(fixed)
    for d in decls:
        if d.name in fixed:
            continue
        others = offsets if conflicts is None else conflicts.get(d.name, ())
        taken = sorted((offsets[o], offsets[o] + sizes[o]) for o in others if o in offsets)
        at = 0
        for lo, hi in taken:
            if at + sizes[d.name] <= lo:
                break
            at = max(at, -(-hi // unit) * unit)
        offsets[d.name] = at
    return offsets


def _extent(decls, sizes, offsets):
    return max((offsets[d.name] + sizes[d.name] for d in decls), default=0)


def _name_shared_memories(program, decls, offsets, sizes):
    """decl.memory: one name for each run of buffers whose bytes overlap (dependencies.py orders
    every access to such a run as to one tensor); buffers alone in their bytes keep none."""
    run, reach = [], -1
    for d in sorted(decls, key=lambda d: offsets[d.name]):
        if run and offsets[d.name] >= reach:
            _name_run(program, run)
            run = []
        run.append(d)
        reach = max(reach, offsets[d.name] + sizes[d.name]) if len(run) > 1 else offsets[d.name] + sizes[d.name]
    _name_run(program, run)


def _name_run(program, run):
    if len(run) > 1:
        name = program.unique_name("shared_%s" % run[0].space)
        for d in run:
            d.memory = name
