"""SPMD launch: `kernel[grid](args)` runs the kernel as one program per
NeuronCore of a chip, as NKI does.

The grid's programs are numbered 0..N-1 row-major over the grid's axes; the
kernel language has one `program_id` (docs/kernel-format.md "SPMD"), so
`nl.program_id(axis)` of a multi-axis grid is an expression of it. While
tracing program i, nl.program_id returns a `ProgramIndex`: an int holding
the value for program i that also carries the .nk expression computing it
(`program_id * 128`). Index arithmetic keeps the expression, so access
patterns are emitted with it and the one kernel text serves every program.
The kernel is traced once per program; programs whose Python branches on
program_id (an `if`, a shape) trace to different texts, which run side by
side on the chip's cores (jit.Kernel.trace_grid).
"""
import json
import math
import operator
import re

from .errors import KernelError, at


def normalize_grid(grid, what="kernel[...]"):
    """A grid as a tuple of positive ints: kernel[4], kernel[2, 2], kernel[(2, 2)]."""
    grid = tuple(grid) if isinstance(grid, (tuple, list)) else (grid,)
    if not grid or any(isinstance(g, bool) or not isinstance(g, int) or g < 1 for g in grid):
        raise KernelError("%s: the launch grid must be positive integers, got %r" % (what, grid))
    return grid


def grid_size(grid):
    return math.prod(grid)


def _expr(x):
    return x.expr if isinstance(x, ProgramIndex) else str(int(x))


class ProgramIndex(int):
    """An integer of the program being traced, with the .nk expression that computes it."""

    def __new__(cls, value, expr):
        obj = int.__new__(cls, value)
        obj.expr = expr
        return obj

    def _combine(self, other, op, value, reverse=False):
        if isinstance(other, bool) or not isinstance(other, int):
            return NotImplemented
        a, b = (other, self) if reverse else (self, other)
        return ProgramIndex(value, "(%s %s %s)" % (_expr(a), op, _expr(b)))

    def _arith(self, o, op, fn, unit=None, reverse=False):
        """self `op` o (o `op` self if reverse); a plain `unit` operand (x + 0, x * 1) keeps self."""
        if isinstance(o, bool) or not isinstance(o, int):
            return NotImplemented
        if unit is not None and not isinstance(o, ProgramIndex) and o == unit:
            return self
        a, b = (int(o), int(self)) if reverse else (int(self), int(o))
        return self._combine(o, op, fn(a, b), reverse)

    def __add__(self, o):
        return self._arith(o, "+", operator.add, 0)

    def __radd__(self, o):
        return self._arith(o, "+", operator.add, 0, True)

    def __sub__(self, o):
        return self._arith(o, "-", operator.sub, 0)

    def __rsub__(self, o):
        return self._arith(o, "-", operator.sub, reverse=True)

    def __mul__(self, o):
        return self._arith(o, "*", operator.mul, 1)

    def __rmul__(self, o):
        return self._arith(o, "*", operator.mul, 1, True)

    def _divide(self, other, op, reverse=False):
        if isinstance(other, bool) or not isinstance(other, int):
            return NotImplemented
        a, b = (int(other), int(self)) if reverse else (int(self), int(other))
        if b == 0:
            raise ZeroDivisionError("integer division or modulo by zero")
        value = a // b if op == "/" else a % b
        if a < 0 or b < 0:
            # .nk divides truncating, Python floors; they agree on non-negative operands only. Ceil idioms
            # like -(-x // y) get the plain number: should it reach an index, the programs' texts differ.
            return value
        return self._combine(other, op, value, reverse)

    def __floordiv__(self, o):
        return self._divide(o, "/")

    def __rfloordiv__(self, o):
        return self._divide(o, "/", True)

    def __mod__(self, o):
        return self._divide(o, "%")

    def __rmod__(self, o):
        return self._divide(o, "%", True)

    def __neg__(self):
        return ProgramIndex(-int(self), "(0 - %s)" % self.expr)

    def __pos__(self):
        return self

    def __index__(self):
        return int(self)

    def __hash__(self):
        return int.__hash__(self)

    def __repr__(self):  # prints as the plain number (shapes, messages); the expression is .expr
        return int.__repr__(int(self))

    __str__ = __repr__


def program_index(grid, program, axis):
    """nl.program_id(axis) of program `program` (row-major over `grid`)."""
    inner = math.prod(grid[axis + 1:])
    value = program // inner % grid[axis]
    expr = "program_id"
    if inner > 1:
        expr = "(%s / %d)" % (expr, inner)
    if axis > 0:
        expr = "(%s %% %d)" % (expr, grid[axis])
    return ProgramIndex(value, expr)


def run_programs(core, traced, config, overrides, inputs, outputs, n):
    """Runs the n programs of a traced grid on one chip. Up to the chip's NeuronCores they run side
    by side (one launch); a larger grid runs in waves of as many programs as there are cores, as
    NKI queues programs on busy cores: HBM carries over from wave to wave and the device time is
    the sum of the waves'."""
    name = traced.program.name + ".nk"
    cores = traced.program.info["chip_cores"]
    if n <= cores:
        return core.run_grid(traced.text, name, config, overrides, inputs, outputs, n, traced.program_texts or [])
    texts = traced.program_texts or [traced.text] * n
    data, total, reports = dict(inputs), 0.0, []
    for start in range(0, n, cores):
        wave = [_concrete(texts[p], p, n) for p in range(start, min(n, start + cores))]
        raw = core.run_grid(wave[0], name, config, overrides, data, outputs, len(wave), wave)
        total += raw["device_time_ns"]
        reports.append((start, json.loads(raw["report"])))
        data.update(raw["outputs"])
    merged = dict(reports[0][1], grid=n, device_time_ns=total, waves=len(reports))
    merged["cores"] = [dict(c, program=start + c["program"], wave=w) for w, (start, r) in enumerate(reports)
                       for c in r["cores"]]
    raw["device_time_ns"] = total
    raw["report"] = json.dumps(merged)
    return raw


def _concrete(text, program, n):
    """A program's kernel text with program_id / num_programs replaced by its numbers (a wave's
    launch numbers its programs from 0)."""
    return re.sub(r"\bnum_programs\b", str(n), re.sub(r"\bprogram_id\b", str(program), text))


def check_pairs(programs, grid):
    """LNC=2 programs must meet at every sendrecv and core_barrier: the Nth of an engine stream of program
    2k pairs with the Nth of the same stream of program 2k+1 (sim/model/core_link.h). Control flow that
    branches on program_id so that one of them is never matched hangs on hardware (NKI documents it;
    the compiler does not catch it): here it is an error naming both programs' kernel lines."""
    from .program import CORE_LINK_OPCODES
    for a in range(0, len(programs) - 1, 2):
        sides = [_links(programs[p], CORE_LINK_OPCODES) for p in (a, a + 1)]
        for key in sorted(set(sides[0]) | set(sides[1])):
            ours, theirs = sides[0].get(key, []), sides[1].get(key, [])
            for i, (x, y) in enumerate(zip(ours, theirs)):
                if key[0] == "sendrecv":
                    _check_exchange(a, x, y, i, grid)
            if len(ours) != len(theirs):
                _unmatched(a, key, ours, theirs, grid)


def _links(program, opcodes):
    out = {}
    for ins in program.instrs:
        if not ins.removed and ins.opcode in opcodes:
            out.setdefault((ins.opcode, ins.engine), []).append(ins)
    return out


def _at(ins):
    return at(ins.where) if ins.where else "?"


def _nth(i):
    n = i + 1
    return "%d%s" % (n, "th" if n % 100 // 10 == 1 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def _unmatched(a, key, ours, theirs, grid):
    opcode, engine = key
    longer, shorter, p = (ours, theirs, a) if len(ours) > len(theirs) else (theirs, ours, a + 1)
    extra = longer[len(shorter)]
    last = (", the last at %s" % _at(shorter[-1])) if shorter else ""
    raise KernelError("program %d of grid %s reaches its %s %s (on %s) at %s, which program %d never matches: "
                      "it reaches %d%s. On hardware this hangs: NKI pairs them by program order, so both programs "
                      "of an LNC=2 pair must run the same number" % (
                          p, grid, _nth(len(shorter)), opcode, engine, _at(extra), p ^ 1, len(shorter), last),
                      extra.where)


def _check_exchange(a, x, y, i, grid):
    """The two sendrecvs' tiles fit: each one's src fills the other's dst."""
    for p, send, recv in ((a, x, y), (a + 1, y, x)):
        src, dst = send.reads[0], recv.writes[0]
        if src.num_elements != dst.num_elements or src.dtype != dst.dtype:
            raise KernelError("program %d of grid %s sends %s %s at %s (its %s sendrecv) into program %d's dst %s %s "
                              "at %s: each one's src must fill the other's dst" % (
                                  p, grid, src.dtype.nk, list(src.shape), _at(send), _nth(i), p ^ 1,
                                  dst.dtype.nk, list(dst.shape), _at(recv)), send.where)

