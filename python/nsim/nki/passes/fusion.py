"""Loop fusion: a loop that only loads the blocks of a declared tile is fused into the loop that
consumes them, block by block, and the tile then needs one block of SBUF, not all of them.

The NKI compiler's middle end fuses loops (the NKI docs' `nki.compiler.skip_middle_end_transformations`:
"skip the middle-end transformations such as loop invariant code motion, loop fusion and loop
fission"). The matmul tutorial's hoisted and blocked kernels (hardware-measurements.md section 3)
are written as
    for k: rhs_tiles[k] = nl.load(...)              # L1: fills a declared [K tiles, 128, N] tile
    for k (or for bm, bn: ... for k): matmul(..., rhs_tiles[k])   # L2: reads block k in step k
and measured as if each K step loaded its block just before its matmul into one reused buffer: with
the whole column loaded ahead (no fusion) the model runs them at 26.8 / 14.2 ms against 42.96 /
22.07 ms measured, fused 46.9 / 20.4 ms. The model's DMA rate is not what is off: the same loads
(256 B / 1 KiB per partition) run at 5 GiB / 20.99 ms = 256 GB/s in the tiled kernel rebuilt by a
later compiler (same section), above what the unfused hoisted kernel needs (165 GB/s).

After fusion block k lives only within fused iteration k. The blocks of a tile are logical ("The
compiler analyzes the memory dependency and allocates physical address to each tile. This means that
the physical tiles may not be alive in the memory simultaneously", NKI Block Dimension Migration
Guide), so the tile is one iteration-local declared tile, which buffer_rule gives DECLARED_BUFFERS = 1
buffer: iteration k+1's load overwrites the block iteration k's consumers read, and waits for them. The .nk keeps the tile's addresses (so
values are unchanged); its blocks become one dependency unit (decl.memory, as for bytes liveness
shares), which is that wait.

When it applies (else nothing moves): within one iteration of the enclosing loops, L1 is an nl loop
whose instructions are all DMA loads into one on-chip tile T (declared, one buffer, with leading
block dims, not placed by the kernel with address= / ncc.sbuf.alloc / mod_alloc, which are honoured
exactly), each block written once; the next nl loop L2 at the same depth reads T, each reading
instruction exactly one block; nothing else touches T anywhere in the kernel; nothing between L1 and
the end of L2 writes what L1 reads. L2's instructions are ordered by the step k of the block they
read (an instruction not reading T goes with the step of the last T reader before it: a loop
interchange that makes k outermost), only if no two accesses to the same tensor (one a write) change
order. Off under skip_middle_end_transformations or passes={"fusion": False}."""
from .buffer_rule import DECLARED_BUFFERS


def run(pipeline, program):
    """Reorders program.instrs for every fusable (L1, L2) pair; returns the tiles fused."""
    if not pipeline.on("fusion") or DECLARED_BUFFERS != 1:
        return []
    instrs = program.instrs
    plans = {}  # tile name -> [(start, end, new order, L1 loop)] per enclosing iteration
    failed = set()
    for start, end, order, tile, loop in _candidates(instrs):
        if order is None:
            failed.add(tile.name)
        else:
            plans.setdefault(tile.name, (tile, []))[1].append((start, end, order, loop))
    touched = _accesses(instrs)
    done = []
    for name, (tile, spans) in plans.items():
        covered = {i for s, e, _, _ in spans for i in range(s, e)}
        if name in failed or not touched[name] <= covered:
            continue
        for start, end, (order, paths), loop in spans:
            instrs[start:end] = order
            for ins, path in zip(order, paths):
                ins.loop_path = path
        tile.memory = tile.name  # one block buffer: every block access is one dependency unit
        done.append(name)
        pipeline.decide("fusion", "%s (%s tile)" % (name, tile.space),
                        "load loop fused into its consumer loop (%d times)" % len(spans),
                        "block k is loaded just before the step that reads it, into one reused "
                        "block buffer (DECLARED_BUFFERS)", spans[0][2][0][0].where)
    return done


def _accesses(instrs):
    out = {}
    for i, ins in enumerate(instrs):
        for v in ins.reads + ins.writes:
            out.setdefault(v.decl.name, set()).add(i)
    return out


def _candidates(instrs):
    """(start, end, reordered instructions or None, tile, L1 loop id) per L1 loop of loads. Loop ids
    are unique per run of a loop statement (language._loop), so an id names one loop instance."""
    i = 0
    while i < len(instrs):
        l1 = _load_loop(instrs, i)
        if l1 is None:
            i += 1
            continue
        depth, end1, tile = l1
        parent = instrs[i].loop_path[:depth]
        j = end1
        while j < len(instrs) and _in(instrs[j], parent) and len(instrs[j].loop_path) == depth:
            j += 1  # straight-line instructions of the enclosing iteration between L1 and L2
        if j == len(instrs) or not _in(instrs[j], parent):
            i = end1
            continue
        loop2 = instrs[j].loop_path[depth][0]
        end2 = j
        while end2 < len(instrs) and _in_loop(instrs[end2], depth, loop2):
            end2 += 1
        order = _fused(instrs[i:end1], instrs[end1:j], instrs[j:end2], tile, parent, instrs[i].loop_path[depth][0])
        yield i, end2, order, tile, instrs[i].loop_path[depth][0]
        i = end2 if order else end1  # an L1 that does not fuse may enclose another (loads ahead of an inner loop)


def _in(ins, parent):
    return len(ins.loop_path) > len(parent) and ins.loop_path[:len(parent)] == parent


def _in_loop(ins, depth, loop):
    return len(ins.loop_path) > depth and ins.loop_path[depth][0] == loop


def _load_loop(instrs, i):
    """(depth, end, tile) when instrs[i] starts an innermost nl loop made only of DMA loads into one
    blocked, single-buffer on-chip tile."""
    path = instrs[i].loop_path
    if not path:
        return None
    depth, loop = len(path) - 1, path[-1][0]
    if i > 0 and _in_loop(instrs[i - 1], depth, loop):
        return None
    end = i
    while end < len(instrs) and _in_loop(instrs[end], depth, loop):
        end += 1
    body = instrs[i:end]
    tiles = {v.decl.name: v.decl for ins in body for v in ins.writes}
    if len(tiles) != 1 or not all(_is_load(ins) and len(ins.loop_path) == depth + 1 for ins in body):
        return None
    tile = next(iter(tiles.values()))
    if getattr(tile, "buffers", 1) != 1 or tile.block_free >= tile.free_size or getattr(tile, "memory", None) \
            or getattr(tile, "address", None) is not None:
        return None  # rotating, unblocked, already sharing bytes, or placed by the kernel (address=, ncc.*.alloc)
    return depth, end, tile


def _is_load(ins):
    return ins.is_dma and len(ins.writes) == 1 and ins.writes[0].decl.on_chip and \
        all(not v.decl.on_chip for v in ins.reads)


def _fused(loads, between, consumer, tile, parent, loop1):
    """(instructions, their loop paths): L1's loads, those between and L2's in fused order; or None. Each
    fused iteration k is L1's iteration k, then the L2 instructions of step k; they are tagged as
    iteration k of loop L1 (reroll.py keeps the fused loop a loop where its iterations read alike)."""
    depth = len(parent)
    step, groups, prev = {}, [], None  # block unit -> its step; per step, L1's instructions
    for ins in loads:
        if ins.loop_path[depth][1] != prev:
            groups.append([])
            prev = ins.loop_path[depth][1]
        unit = _one_block(ins.writes)
        if unit is None or step.get(unit, len(groups) - 1) != len(groups) - 1:
            return None  # a load over two blocks, or a block written in two iterations
        groups[-1].append(ins)
        step[unit] = len(groups) - 1
    sources = {v.decl.name for ins in loads for v in ins.reads}
    if any(v.decl.name in sources or v.decl.name == tile.name for ins in between for v in ins.writes + ins.reads):
        return None
    keyed, key = [], None
    for ins in consumer:
        if any(v.decl.name in sources or v.decl.name == tile.name for v in ins.writes):
            return None
        reads = [v for v in ins.reads if v.decl.name == tile.name]
        if reads:
            key = step.get(_one_block(reads))
            if key is None:
                return None
        if key is None:
            return None  # work before the first block is read: not a loop over the blocks
        keyed.append((key, ins))
    if not _order_kept(keyed):
        return None
    keyed.sort(key=lambda kv: kv[0])  # stable: each step keeps its instructions' order
    out, paths, at = list(between), [ins.loop_path for ins in between], 0
    for k, group in enumerate(groups):
        mine = list(group)
        while at < len(keyed) and keyed[at][0] == k:
            mine.append(keyed[at][1])
            at += 1
        out += mine
        paths += [parent + ((loop1, k),)] * len(mine)
    return out, paths


def _one_block(views):
    units = {u for v in views for u in v.units(1)}
    return next(iter(units)) if len(units) == 1 else None


def _order_kept(keyed):
    """Whether sorting by step keeps every pair of conflicting accesses in order: per tensor unit,
    no access follows a conflicting one of a later step."""
    last_w, last_r = {}, {}
    for key, ins in keyed:
        reads = [u for v in ins.reads for u in v.units(1)]
        writes = [u for v in ins.writes for u in v.units(1)]
        if any(last_w.get(u, -1) > key for u in reads + writes) or any(last_r.get(u, -1) > key for u in writes):
            return False
        for u in reads:
            last_r[u] = max(last_r.get(u, -1), key)
        for u in writes:
            last_w[u] = max(last_w.get(u, -1), key)
    return True
