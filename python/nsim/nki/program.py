"""The kernel being traced: tensors, tile allocation and the instruction list.

Kernel code runs once in Python (loops unroll); every nl/nisa call appends
instructions here. jit.Kernel.trace then checks capacity (allocation.py),
adds the semaphores that order the engines (dependencies.py) and writes the
.nk text (emit.py).
"""
import functools
import math
import re

from . import indirect, masks, opcodes, reversed_dims
from . import spmd as _spmd
from .passes import Pipeline, buffer_rule
from .errors import KernelError, fail, stack, user_frames, where
from .view_methods import reach
from .views import Decl, HbmTensor, Tile, positive_shape

_current = []


def current():
    if not _current:
        fail("nki.language / nki.isa functions can only be called inside an @nki.jit kernel being run")
    return _current[-1]


# The opcodes that are DMA transfers (the issuing engine only triggers them; queues, semaphores).
DMA_OPCODES = ("dma_copy", "dma_transpose", "sendrecv", "dma_indirect")
# The opcodes that meet the LNC=2 pair peer's matching instruction (sim/model/core_link.h): the Nth of
# an engine stream pairs with the peer's Nth there, so passes never drop, merge or move them.
CORE_LINK_OPCODES = ("sendrecv", "core_barrier")


def _outside(v):
    """Why view v reaches past its tensor, or None: the last check before the kernel text, for any view
    a path made without its own bounds check (the emitted kernel must parse)."""
    if getattr(v, "outside", None):
        return v.outside
    last, total = reach(v.decl, v.offset, v.dims)
    if v.offset < 0 or last >= total:
        return "the access to tensor '%s' reaches element %d (%d elements)" % (v.decl.name, last, total)
    return None


class ParDim(int):
    """nl.par_dim(n): marks the partition dim of a tile shape."""


class Instr:
    def __init__(self, engine, opcode, operands, attrs, stack, reads, writes):
        self.engine, self.opcode, self.operands, self.attrs = engine, opcode, operands, attrs
        self.stack = stack  # the kernel's frames that made it, innermost first (errors.stack)
        self.where = stack[0][:2] if stack else None
        self.reads, self.writes = reads, writes
        self.waits, self.signals = [], []
        self.removed = False
        self.placed_by_kernel = False  # nisa.dma_copy(engine=/queue=): the dma_queues pass keeps it
        self.loop_path = ()  # the nl loop iterations it was made in, outermost first (reroll.py)

    @property
    def is_dma(self):
        return self.opcode in DMA_OPCODES


class Program:
    def __init__(self, name, info, num_buffers=None, dma_queues=4, site_buffers=None, grid=(1,), program=0,
                 pipeline=None):
        self.name = _identifier(name)
        self.pipeline = pipeline or Pipeline(name)  # the compiler model's passes (passes/)
        self.grid, self.program = grid, program  # SPMD launch grid and the program being traced (spmd.py)
        self.info = info                      # config limits (_nsim_core.config_info)
        self.num_buffers = num_buffers        # per loop-local tile, unless overridden; None: automatic
        self.site_buffers = site_buffers or {}  # automatic choices made to fit capacity (allocation.py)
        self.dma_queues = dma_queues          # DMA queues the frontend rotates over
        self.decls, self.instrs = [], []
        self._names, self._sites = set(), {}
        self._next_queue = 0
        self.loop_depth = 0
        self.loop_path = []                   # (loop id, iteration) of the nl loops running (reroll.py)
        self.loops_made = 0
        self.stale_sites = set()              # rule-allocated sites a tile of which was used after its buffer's reuse
        self.site_calls = []                  # per running nl loop: call site -> tiles it made this iteration
        self._last_engine = {}                # decl name -> stream engine of its last compute write
        self._fresh = None                    # (instr, tile, mask): a result nothing has read yet
        self._zero_fill = {}                  # id(PSUM tile) -> its nl.zeros memset, while nothing else touched it
        self.constants = {}                   # decl name -> (host array, DType): nl.shared_constant data
        self._mask = None                     # (Mask, call site) of the nl/nisa call being made

    def __enter__(self):
        _current.append(self)
        return self

    def __exit__(self, *exc):
        _current.pop()

    # ------------------------------------------------------------ tensors
    def unique_name(self, base):
        """A tensor name; "sem_" names are the semaphores' (tensors and semaphores share one namespace)."""
        base = _identifier(base)
        base = "t_" + base if base.startswith("sem_") else base
        name, k = base, 1
        while name in self._names or name in ("inf", "nan"):
            name, k = "%s_%d" % (base, k), k + 1
        self._names.add(name)
        return name

    def hbm_tensor(self, name, shape, dtype, argument=False, buffer="hbm"):
        n = _spmd.grid_size(self.grid)
        if buffer == "private_hbm" and n > 1:
            return self._private_hbm(name, shape, dtype, n)
        decl = Decl(self.unique_name(name), "hbm", dtype, shape, None if argument else where(), buffer)
        self.decls.append(decl)
        return HbmTensor(decl)

    def _private_hbm(self, name, shape, dtype, n):
        """nl.private_hbm is each core's own memory: the programs of a grid share the kernel's HBM
        tensors, so one tensor holds all n programs' copies and each program sees its own, at
        program_id * size (the offset carries the .nk expression, so one text serves every program)."""
        size = math.prod(shape)
        decl = Decl(self.unique_name(name), "hbm", dtype, [n * shape[0]] + list(shape[1:]), where(), "private_hbm")
        self.decls.append(decl)
        whole = HbmTensor(decl)
        offset = _spmd.ProgramIndex(self.program * size, "(program_id * %d)" % size)
        return HbmTensor(decl, offset, whole.dims[:1] and [[whole.dims[0][0], shape[0]]] + whole.dims[1:])

    def constant(self, array, dtype):
        """An HBM tensor holding `array` (nl.shared_constant): an input of the run the kernel did not get."""
        t = self.hbm_tensor("const", array.shape, dtype, argument=True)
        self.constants[t.decl.name] = (array.astype(dtype.np_dtype), dtype)
        return t

    def new_tile(self, shape, dtype, space, label, num_buffers=None, name=None, declared=False):
        """A tile of `shape` (partition dim first, or marked with nl.par_dim) in sbuf/psum.

        Tiles made by the same call site of the kernel rotate over N physical
        buffers (modulo allocation), N chosen by the buffer_rule pass
        (passes/buffer_rule.py; `declared`: made by nl.ndarray/zeros/full, not
        returned by an operation). Outside nl loops (straight-line code, Python
        loops) every tile gets its own buffer.

        A site that makes several tiles in one iteration of the innermost nl loop (a Python loop
        filling a list of tiles) gives each its own rotation: the k-th tile of an iteration rotates
        with the k-th of the others, never over a tile the same iteration may still read.
        """
        shape = positive_shape(shape, "tile")
        if num_buffers is not None and (isinstance(num_buffers, bool) or not isinstance(num_buffers, int)
                                        or num_buffers < 1):
            fail("num_buffers=%r must be a positive integer" % (num_buffers,))
        pdim = next((i for i, s in enumerate(shape) if isinstance(s, ParDim)), 0)
        parts = shape[pdim]
        if parts > self.info["partitions"]:
            fail("partition dim %d of tile %s exceeds the %d partitions" % (parts, shape, self.info["partitions"]))
        frames = user_frames()
        site = (tuple((f.f_code, f.f_lasti) for f in frames), shape, dtype.nk, space)
        if self.site_calls:
            calls = self.site_calls[-1]
            calls[site] = nth = calls.get(site, -1) + 1
            site += (nth,)
        entry = self._sites.get(site)
        if entry is None:
            chosen = not num_buffers and not self.num_buffers and self.loop_depth > 0
            if chosen and self.site_buffers.get(site) == 0:
                n, why = 0, ("a tile of it is used after a later iteration made the next one: every tile its own "
                             "buffer (the allocator keeps values that are live together apart)")
            else:
                n, why = buffer_rule.buffers(self.pipeline, num_buffers, self.num_buffers, declared,
                                             self.loop_depth > 0, self.site_buffers.get(site) == 1, space)
            line = frames[0].f_lineno if frames else 0
            entry = self._sites[site] = {"n": int(n), "decls": [], "count": 0, "key": site, "space": space,
                                         "auto": chosen and n > 1, "chosen": chosen,
                                         "label": "%s_L%d" % (name or label, line)}
            self.pipeline.decide("buffer_rule", "%s tile %s %s" % (space, list(shape), name or label),
                                 "%d buffer(s)" % n if n else "own buffer per tile", why,
                                 (frames[0].f_code.co_filename, line) if frames else None, entry)
        slot = entry["count"] % entry["n"] if entry["n"] else entry["count"]
        entry["count"] += 1
        if slot == len(entry["decls"]):
            free = [s for i, s in enumerate(shape) if i != pdim]
            decl = Decl(self.unique_name("%s_b%d" % (entry["label"], slot)), space, dtype,
                        [parts] + (free or [1]), where())
            decl.buffers = entry["n"] or 1
            decl.block_free = math.prod(shape[pdim + 1:])
            decl.site = entry
            if entry["n"] > 1:
                decl.slot = slot  # its place in the loop's rotation (dependencies.py groups by it)
            self.decls.append(decl)
            entry["decls"].append(decl)
        decl = entry["decls"][slot]
        decl.version += 1
        dims, stride = [], 1
        for i in reversed(range(len(shape))):
            if i == pdim:
                dims.insert(0, [decl.free_size, parts])
            else:
                dims.insert(0, [stride, shape[i]])
                stride *= shape[i]
        tile = Tile(decl, 0, dims, pdim)
        tile.where = where()
        decl.owner = tile
        return tile

    # ------------------------------------------------------------ instructions
    def _check_live(self, view, reading):
        if isinstance(view, Tile):
            if view.version != view.decl.version:
                site = getattr(view.decl, "site", None)
                if site is not None and site["chosen"] and site["n"]:  # the rule's count was too few: retraced (jit.trace)
                    self.stale_sites.add(site["key"])
                    return
                new = view.decl.owner
                fail("tile from line %d is used after its buffer was reused by the tile from line %d "
                     "(%d buffer(s) for that allocation): give it more with num_buffers=, or keep it "
                     "outside the loop" % (view.owner.where[1], new.where[1], view.decl.buffers))
            if reading and not view.owner.written:
                fail("tile from line %d is read before anything was written to it" % view.owner.where[1])

    def set_mask(self, mask):
        """mask= of the nl/nisa call being made: it applies to what that call emits."""
        self._mask = (mask, _call_site()) if mask is not None else None

    def _masked(self, dst, srcs, attrs, writes):
        mask = self._call_mask()
        if mask is not None and not mask.skip:
            cut = functools.partial(masks.restrict, mask=mask)
            dst, srcs, writes = cut(dst) if dst is not None else None, [cut(s) for s in srcs], [cut(w) for w in writes]
            attrs = [(k, cut(v) if hasattr(v, "decl") else v) for k, v in attrs]
        skip = mask is not None and mask.skip
        for v in ([dst] if dst is not None else []) + list(srcs) + [v for _, v in attrs if hasattr(v, "decl")]:
            if any(n == 0 for _, n in v.dims):
                fail("the access to tensor '%s' is empty (shape %s): an instruction reads or writes at least "
                     "one element" % (v.decl.name, list(v.shape)))
            if v.valid is not None and not skip:
                fail("the access reaches past tensor '%s' (%s of the view's %s exist): slice within the tensor "
                     "or give the call a mask= (e.g. mask=(i * 128 + i_p < n))"
                     % (v.decl.name, list(v.valid), list(v.shape)))
            for c in (getattr(v, "sum_checks", None) or []) if not skip else []:
                if c.reach(v) > c.budget:
                    fail("the index sum reaches past dim %d of tensor '%s' (size %d) by %d element(s): index "
                         "within the tensor or give the call a mask= that cuts it back"
                         % (c.dim, v.decl.name, c.size, c.reach(v) - c.budget))
            why = None if skip else _outside(v)
            if why:
                fail(why)
        return dst, srcs, attrs, writes, skip

    def emit(self, engine, opcode, dst, srcs=(), attrs=(), reads=(), writes=(), write_only=()):
        """Appends one instruction; `dst` is written, `srcs` (and views in attrs, but those of the
        attributes named in write_only) are read."""
        if opcode == "dma_copy" and any(indirect.of(v) is not None for v in [dst] + list(srcs)):
            return indirect.emit_dma(self, engine, dst, srcs[0], None, attrs)  # nl.load/store of such a view
        opcodes.check_engine(engine, opcode, opcode)  # the simulator's table, not a list of our own
        whole, mask = dst, self._call_mask()
        dst, srcs, attrs, writes, skip = self._masked(dst, srcs, attrs, writes)
        parts = reversed_dims.split(opcode, dst, srcs, attrs, writes)
        for dst, srcs, attrs, writes in parts:
            ins = self._append(engine, opcode, dst, srcs, attrs, reads, writes, write_only, skip)
        # A result nothing has read yet, which an assignment may retarget (cut by the same mask= as
        # the part of it the instruction wrote); none when several instructions made it.
        fresh = len(parts) == 1 and isinstance(whole, Tile) and whole is whole.owner
        self._fresh = (ins, whole, mask if mask is not None and not mask.skip else None) if fresh else None
        return ins

    def _call_mask(self):
        return self._mask[0] if self._mask and self._mask[1] == _call_site() else None

    def _append(self, engine, opcode, dst, srcs, attrs, reads, writes, write_only, skip):
        operands = ([dst] if dst is not None else []) + list(srcs)
        if opcode != "dma_indirect":
            indirect.check_not_indirect(opcode, operands)
        attr_views = [v for k, v in attrs if hasattr(v, "decl") and k not in write_only]
        reads = list(srcs) + attr_views + list(reads)
        writes = ([dst] if dst is not None else []) + list(writes)
        for v in reads:
            self._check_live(v, reading=True)
        for v in reads + writes:
            self._zero_fill.pop(id(getattr(v, "owner", None)), None)
        for v in writes:
            self._check_live(v, reading=False)
            if isinstance(v, Tile):
                v.owner.mark_written(v)
        if opcode in DMA_OPCODES and not any(k == "queue" for k, _ in attrs):
            attrs = list(attrs) + [("queue", self.next_queue())]
        ins = Instr(engine, opcode, operands, list(attrs), stack(), reads, writes)
        ins.removed = skip  # mask=False: traced, then dropped (drop_removed)
        ins.loop_path = tuple(self.loop_path)
        self.instrs.append(ins)
        if opcode not in DMA_OPCODES:
            for v in writes:
                self._last_engine[v.decl.name] = engine
        return ins

    def dma_engine(self, src):
        """Which stream triggers a DMA: the producer of an on-chip source (its
        in-order hazard check stands in for a semaphore), else Sync."""
        if isinstance(src, Tile):
            return self._last_engine.get(src.decl.name, "sync")
        return "sync"

    def take_fresh(self, value):
        """The instruction that produced `value`, if nothing has read it since."""
        if self._fresh and self._fresh[1] is value and self.instrs and self.instrs[-1] is self._fresh[0]:
            return self._fresh[0]
        return None

    def assign(self, dst, value):
        from . import language as nl
        if isinstance(value, (int, float)):
            nl._memset(dst, value)
            return
        if hasattr(value, "assign_to"):  # nl.loop_reduce's value (composites.LoopReduce)
            value.assign_to(dst)
            return
        if not isinstance(value, Tile):
            fail("only tiles and numbers can be assigned to a tile slice, got %r" % (value,))
        _check_same_size(dst, value, "assignment")
        if value.decl is dst.decl and value.offset == dst.offset and value.dims == dst.dims:
            return  # `t[...] += x` assigns the updated view back to itself
        ins = self.take_fresh(value)
        # Write the result straight into dst; TensorE can only write PSUM.
        if ins is not None and (ins.engine != "tensor" or dst.decl.space == "psum"):
            self._retarget(ins, value, dst)
            return
        nl._copy_into(dst, value)

    def accumulate(self, dst, value):
        from . import language as nl
        if isinstance(value, Tile):
            ins = self.take_fresh(value)
            if ins is not None and ins.opcode == "matmul" and dst.decl.space == "psum":
                _check_same_size(dst, value, "+=")
                already = dst.owner.written and not self._drop_zero_fill(dst)
                self._retarget(ins, value, dst)
                if already:
                    ins.attrs.append(("accumulate", "true"))
                    ins.reads.append(dst)
                return
        nl._binary_into(dst, dst, value, "add")

    def zero_filled(self, tile, ins):
        """Notes that `ins` (a memset 0) is all that happened to the PSUM tile so far."""
        self._zero_fill[id(tile)] = (tile, ins)

    def _drop_zero_fill(self, dst):
        """`psum += matmul` into a tile nl.zeros just cleared: like the NKI compiler, start the
        accumulation group with a plain matmul instead of clearing PSUM on VectorE first."""
        entry = self._zero_fill.pop(id(dst.owner), None)
        if entry is None or dst.offset != 0 or dst.dims != dst.owner.dims:
            return False
        entry[1].removed = True
        return True

    def _retarget(self, ins, old, new):
        if self._fresh and self._fresh[0] is ins and self._fresh[2] is not None:
            new = masks.restrict(new, self._fresh[2])  # the instruction wrote the masked part only
        self._check_live(new, reading=False)
        written = ins.operands[0]  # `old`, or the part of it a mask= cut
        ins.operands[0] = new
        ins.writes = [new if w is old or w is written else w for w in ins.writes]
        new.owner.mark_written(new)
        old.decl.version += 1  # the temporary is gone; any later use of it is an error
        if not ins.is_dma:
            self._last_engine[new.decl.name] = ins.engine
        self._fresh = None

    def next_queue(self):
        q = self._next_queue % self.dma_queues
        self._next_queue += 1
        return q

    # ------------------------------------------------------------ finish
    def drop_removed(self):
        self.instrs = [ins for ins in self.instrs if not ins.removed]

    def sites(self):
        return list(self._sites.values())

    def used_decls(self):
        used = set()
        add = used.add
        for ins in self.instrs:
            if ins.removed:
                continue
            for v in ins.operands:
                add(v.decl.name)
            for _, v in ins.attrs:
                if hasattr(v, "decl"):
                    add(v.decl.name)
        return [d for d in self.decls if d.space == "hbm" or d.name in used]


def _call_site():
    """The kernel's call being executed: its innermost frame and instruction."""
    frames = user_frames()
    return (id(frames[0]), frames[0].f_lasti) if frames else None


def _check_same_size(dst, value, what):
    if dst.partitions != value.partitions or dst.free_elements != value.free_elements:
        fail("%s: shapes differ: %s (%d partitions x %d) and %s (%d partitions x %d)"
             % (what, dst.shape, dst.partitions, dst.free_elements, value.shape, value.partitions,
                value.free_elements))


def _identifier(name):
    name = re.sub(r"[^A-Za-z0-9_]", "_", str(name)) or "t"
    return name if re.match(r"[A-Za-z_]", name) else "t_" + name
