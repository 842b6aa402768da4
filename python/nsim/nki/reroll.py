"""Re-rolling: the .nk text keeps each nl.affine_range / nl.sequential_range loop as a `loop` block
(docs/kernel-format.md "Loops") instead of one line per traced instruction.

Tracing runs a loop body once per iteration, and every instruction remembers the iterations it was
made in (Instr.loop_path). Here the lines of one loop are split by iteration; the loop is rolled when
the iterations, taken in groups of P consecutive ones (P > 1 for tiles rotating over P buffers, whose
names differ), read the same except for integers where the format accepts an expression (slice
indices, .ap offsets, wait thresholds, loop bounds) and each such integer is affine in the group
number: `a + b*i`. That is checked on every group, never guessed. Up to P first iterations that
differ (the first round over the buffers waits for none to be freed; licm keeps a hoisted instruction
in the first) are left before the loop, iterations that do not fill a group after it, and a loop that cannot be rolled stays unrolled. Inner loops roll first, so an outer loop compares
rolled bodies. The result unrolls (sim/kernel/parser.cc) to exactly the lines it replaces."""
import functools
import itertools
import re

_VARS = "ijklmnopqrstuvwxyz"  # loop variables by depth: letters only, so no digit is part of a name
_MAX_PERIOD = 8               # most buffers a tile rotates over that a loop is still rolled for
_MIN_TRIPS = 3                # any two groups fit a + b*i; three make it a finding

# Where an expression may stand: a slice `name[...]`, an .ap offset, a wait threshold, loop bounds.
_REGION = re.compile(r"(?<=[A-Za-z0-9_])\[|\.ap\(|>=|^loop [a-z]+ in ")
_INT = re.compile(r"(?<![A-Za-z0-9_.])\d+")


class Line:
    """One .nk line: its text, its `# ...` comment and the Python source it came from."""

    __slots__ = ("text", "comment", "src")

    def __init__(self, text, comment="", src=None):
        self.text, self.comment, self.src = text, comment, src


def reroll(entries):
    """entries: (Line, loop_path) in program order, loop_path a tuple of (loop id, iteration) from
    the outermost loop in. Returns the Lines of the text with loops rolled where they can be."""
    return _block(entries, 0)


def _block(entries, depth):
    out, i = [], 0
    while i < len(entries):
        line, path = entries[i]
        if len(path) <= depth:
            out.append(line)
            i += 1
            continue
        loop, j = path[depth][0], i
        while j < len(entries) and len(entries[j][1]) > depth and entries[j][1][depth][0] == loop:
            j += 1
        out += _loop([_block(body, depth + 1) for body in _iterations(entries[i:j], depth)], depth)
        i = j
    return out


def _iterations(entries, depth):
    bodies, last = [], None
    for entry in entries:
        if entry[1][depth][1] != last:
            bodies.append([])
            last = entry[1][depth][1]
        bodies[-1].append(entry)
    return bodies


def _loop(bodies, depth):
    """The iterations' lines, rolled into `loop` lines where every group of them agrees."""
    for period in range(1, _MAX_PERIOD + 1):
        for peel in range(period + 1):
            rest = bodies[peel:]
            trips = len(rest) // period
            if trips < _MIN_TRIPS:
                break
            groups = [_concat(rest[q * period:(q + 1) * period]) for q in range(trips)]
            rolled = _fit(groups, _VARS[depth]) if depth < len(_VARS) else None
            if rolled is not None and len(rolled) + 2 < trips * len(rolled):
                header = Line("loop %s in 0:%d {" % (_VARS[depth], trips))
                return _concat(bodies[:peel]) + [header] + rolled + [Line("}")] + _concat(rest[trips * period:])
    return _concat(bodies)


def _concat(lists):
    return list(itertools.chain.from_iterable(lists))


def _fit(groups, var):
    """One body whose integers are affine in `var` (the group number), or None if the groups differ.
    Each line is compared group by group, so a loop that does not fit is given up on early."""
    if any(len(g) != len(groups[0]) for g in groups):
        return None
    body = []
    for k, first in enumerate(groups[0]):
        skeleton, start = _split(first.text)
        second = _split(groups[1][k].text)
        if second[0] != skeleton:
            return None
        steps = [b - a for a, b in zip(start, second[1])]
        for q in range(2, len(groups)):
            shape, values = _split(groups[q][k].text)
            if shape != skeleton or any(v != a + q * d for v, a, d in zip(values, start, steps)):
                return None
        body.append(Line(_join(skeleton, [_affine(a, d, var) for a, d in zip(start, steps)]), first.comment,
                         first.src))
    return body


def _affine(a, b, var):
    if b == 0:
        return str(a)
    term = var if b == 1 else "-" + var if b == -1 else "%d*%s" % (b, var)
    return term if a == 0 else "%s%+d" % (term, a)


@functools.lru_cache(maxsize=1 << 16)
def _split(text):
    """(skeleton, integers): the text cut at every integer that stands where an expression may, the
    cuts marked by the operators around them (so a replacement gets parentheses when it needs them)."""
    parts, values, pos = [], [], 0
    for region in _REGION.finditer(text):
        start = region.end()
        end = _region_end(text, start, region.group())
        for m in _INT.finditer(text, start, end):
            if m.start() < pos:
                continue
            parts.append(text[pos:m.start()])
            values.append(int(m.group()))
            pos = m.end()
    parts.append(text[pos:])
    return tuple(parts), values


def _region_end(text, start, opener):
    if opener == ">=":
        m = re.compile(r"\s").search(text, start)
        return m.start() if m else len(text)
    if opener.startswith("loop"):
        return text.rfind("{")
    close, sep = ("]", None) if opener == "[" else (")", ",")
    depth = 0
    for p in range(start, len(text)):
        c = text[p]
        if c in "([":
            depth += 1
        elif c in ")]":
            if depth == 0:
                return p
            depth -= 1
        elif c == sep and depth == 0:
            return p
    return len(text)


def _join(skeleton, exprs):
    out = [skeleton[0]]
    for expr, after in zip(exprs, skeleton[1:]):
        before, next_char = out[-1].rstrip()[-1:], after.lstrip()[:1]
        operand = (before != "" and before in "*/%+-") or (next_char != "" and next_char in "*/%")
        out.append("(%s)" % expr if operand and not re.fullmatch(r"\w+", expr) else expr)
        out.append(after)
    return "".join(out)
