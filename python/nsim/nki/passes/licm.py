"""Loop-invariant code motion: work that a later loop iteration repeats unchanged is done once.

The NKI compiler's middle end hoists loop-invariant instructions out of loops (the NKI docs'
`nki.compiler.skip_middle_end_transformations`: "skip the middle-end transformations such as loop
invariant code motion, loop fusion and loop fission"; CS149 marks its kernels with it so that what
runs is what was written). Loops are unrolled when traced, so an invariant instruction shows up as
the same instruction again: same engine, opcode, operands (same buffers and access patterns) and
attributes, with nothing written since to any tensor it reads or writes. Such a repeat would
recompute what its destination already holds, so it is dropped; the first one stays where it was,
which is where the hoisted instruction runs. An instruction that reads its own destination (an
accumulation) is never a repeat. Off under skip_middle_end_transformations or passes={"licm": False}."""


def run(pipeline, instrs):
    """Marks repeated instructions removed; returns how many."""
    if not pipeline.on("licm"):
        return 0
    writes = {}      # decl name -> number of instructions that wrote it so far
    seen = {}        # instruction key -> the write counts of its tensors just after it ran
    dropped = 0
    for ins in instrs:
        if ins.removed:
            continue
        names = sorted({v.decl.name for v in ins.reads + ins.writes})
        read_own = {v.decl.name for v in ins.reads} & {v.decl.name for v in ins.writes}
        key = _key(ins)
        if not read_own and key is not None and seen.get(key) == tuple(writes.get(n, 0) for n in names):
            ins.removed = True
            dropped += 1
            pipeline.decide("licm", "%s %s" % (ins.engine, ins.opcode), "hoisted (repeat dropped)",
                            "loop-invariant: recomputes what %s already holds"
                            % ", ".join(sorted({v.decl.name for v in ins.writes})), ins.where)
            continue
        for v in ins.writes:
            writes[v.decl.name] = writes.get(v.decl.name, 0) + 1
        if key is not None:
            seen[key] = tuple(writes.get(n, 0) for n in names)
    return dropped


def _key(ins):
    from ..program import CORE_LINK_OPCODES
    if not ins.writes or ins.opcode in CORE_LINK_OPCODES:  # a repeat meets the peer's next one: never drop it
        return None
    attrs = tuple((k, v.ap_text() if hasattr(v, "decl") else repr(v)) for k, v in ins.attrs if k != "queue")
    return (ins.engine, ins.opcode, tuple(v.ap_text() for v in ins.operands), attrs)
