"""Semaphores that order the engines, as the NKI compiler inserts them.

Two counting semaphores per tensor (per block of a blocked tile, see
View.units): `<t>_w` counts completed writes, `<t>_r` completed reads. An instruction that reads t waits until `<t>_w` reaches the
number of writes issued before it; one that writes t waits for all earlier
writes and reads. Counting totals makes the order of completions irrelevant.
A wait is left out when every pending access ran on the same in-order engine
stream (the engine's own hazard check orders those) or was already waited for
by that stream. DMA transfers complete asynchronously, so they always count
as pending for everyone. Writes to a tensor nothing reads (a kernel output)
are not ordered among themselves: stores of disjoint tiles run concurrently,
unless one of them writes at a runtime address (dma_indirect), which may land anywhere.

The core has a fixed number of semaphores (config kernel.semaphores). When the
finest tracking needs more, coarser units are used, each still correct (a
unit is treated as one tensor, so ordering only gets stricter): 2, 4, 8, ...
blocks per unit, whole tensors, then one unit per buffer slot of the loops' rotating
allocations, then a fixed number of buckets (the buffers sharing bytes last).
"""
from .errors import KernelError


def add_semaphores(instrs, limit):
    """Fills `waits` and `signals` of every instruction within `limit` semaphores; returns those waited on."""
    buckets = {}

    def bucket(key):
        return "b%d" % buckets.setdefault(key, len(buckets) % max(1, limit // 2))

    most_blocks = max((v.decl.free_size // v.decl.block_free for ins in instrs for v in ins.reads + ins.writes
                       if v.decl.on_chip), default=1)
    groups = [1 << k for k in range(most_blocks.bit_length()) if 1 << k < most_blocks] or [1]
    levels = tuple((lambda g: lambda v: v.units(g))(g) for g in groups) + (
        lambda v: [v.decl.name],
        lambda v: [_slot_unit(v.decl)],
        lambda v: [bucket(_slot_unit(v.decl))],
    )
    for units_of in levels:
        semaphores = _assign(instrs, _shared_memory_first(units_of))
        if len(semaphores) <= limit:
            return semaphores
    # Last: the shared-memory units bucketed too (attention_cte's hundreds of shared PSUM/SBUF buffers).
    semaphores = _assign(instrs, lambda v: [bucket(getattr(v.decl, "memory", None) or _slot_unit(v.decl))])
    if len(semaphores) <= limit:
        return semaphores
    raise KernelError("the kernel needs %d semaphores; the config has %d" % (len(semaphores), limit))


def _shared_memory_first(units_of):
    """Buffers the liveness pass placed on shared bytes (decl.memory) are one unit: a reuse of the
    bytes waits for every access to their previous values, whichever tile made them."""
    def units(v):
        memory = getattr(v.decl, "memory", None)
        return [memory] if memory else units_of(v)
    return units


def _slot_unit(decl):
    slot = getattr(decl, "slot", None)
    return "slot%d" % slot if slot is not None else decl.name


def _assign(instrs, units_of):
    writers, readers = {}, {}   # decl name -> stream tag of each access ("dma" for transfers)
    known = {}                  # (stream, decl, kind) -> accesses that stream knows are done
    waited = set()
    read_anywhere = {name for ins in instrs for name in _names(ins.reads, units_of)}
    # A write at a runtime address (dma_indirect's scatter) may land on any other write's bytes.
    read_anywhere |= {name for ins in instrs if ins.opcode == "dma_indirect" for name in _names(ins.writes, units_of)}
    for ins in instrs:
        stream = ins.engine
        tag = "dma" if ins.is_dma else stream
        reads = _names(ins.reads, units_of)
        writes = _names(ins.writes, units_of)
        needs = {}

        def check(name, kind):
            log = (writers if kind == "w" else readers).setdefault(name, [])
            seen = known.get((stream, name, kind), 0)
            if any(t != stream for t in log[seen:]):
                needs["sem_%s_%s" % (name, kind)] = len(log)
            known[(stream, name, kind)] = len(log)

        for name in reads:
            check(name, "w")
        for name in writes:
            if name in read_anywhere:
                check(name, "w")
                check(name, "r")
        ins.waits = sorted(needs.items())
        ins.signals = []
        waited.update(needs)
        for name in reads:
            readers.setdefault(name, []).append(tag)
            ins.signals.append("sem_%s_r" % name)
        for name in writes:
            writers.setdefault(name, []).append(tag)
            ins.signals.append("sem_%s_w" % name)
    for ins in instrs:
        ins.signals = [s for s in ins.signals if s in waited]
    return sorted(waited)


def _names(views, units_of):
    out = []
    for v in views:
        for unit in units_of(v):
            if unit not in out:
                out.append(unit)
    return out
