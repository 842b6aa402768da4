"""One table per opcode (sim/kernel/opcode_table.h): the extension's table, the kernel-format
docs and the frontend's engine checks must agree, so an opcode added in one place but not
derivable everywhere fails here (the C++ side: //sim/isa:opcode_table_test)."""
import os
import re

import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim import _core
from nsim.nki import opcodes
from nki_testing import ROOT

DOC = os.path.join(ROOT, "docs", "kernel-format.md")


def doc_rows():
    """(opcode, engines, operand count) of the docs' "## Opcodes" table, in order."""
    with open(DOC) as f:
        text = f.read()
    section = text.split("## Opcodes", 1)[1]
    rows = []
    for line in section.splitlines()[2:]:
        m = re.match(r"\| `(\w+)` \| ([^|]+) \| ([^|]+) \|", line)
        if not m:
            if rows:
                break
            continue
        engines = [e.strip() for e in m.group(2).split(",")]
        operands = m.group(3).strip().strip("`")
        rows.append((m.group(1), engines, 0 if operands == "none" else len(operands.split(","))))
    return rows


def test_docs_table_is_the_simulator_table():
    table = _core.core().opcode_table()
    all_engines = _core.core().engines()
    expected = [(r["name"], sorted(all_engines) if r["engines"] == all_engines else sorted(r["engines"]),
                 r["operands"]) for r in table]
    documented = [(name, sorted(all_engines) if engines == ["any"] else sorted(engines), n)
                  for name, engines, n in doc_rows()]
    assert documented == expected


def test_every_opcode_has_names_and_engines():
    table = _core.core().opcode_table()
    assert len({r["name"] for r in table}) == len(table)
    for r in table:
        assert re.fullmatch(r"[a-z0-9_]+", r["name"]) and re.fullmatch(r"[A-Z0-9_]+", r["hw_name"])
        assert r["engines"] and set(r["engines"]) <= set(_core.core().engines())


@pytest.mark.parametrize("engine", [nisa.tensor_engine, nisa.vector_engine, nisa.scalar_engine,
                                    nisa.gpsimd_engine])
def test_frontend_accepts_exactly_the_tables_engines(engine):
    # tensor_copy on each engine: the kernel builds iff the simulator's table lists that engine.
    @nki.jit
    def k(a):
        t = nl.load(a)
        out = nl.ndarray(t.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.tensor_copy(t, engine=engine))
        return out
    rows = {r["name"]: r for r in _core.core().opcode_table()}
    allowed = engine in rows["tensor_copy"]["engines"]
    if allowed:
        nki.simulate_kernel(k, np.zeros((4, 8), np.float32))
    else:
        with pytest.raises(nki.KernelError, match="cannot run on the %s engine" % engine):
            nki.simulate_kernel(k, np.zeros((4, 8), np.float32))


def test_wrong_engine_lists_the_tables_engines():
    @nki.jit
    def k(a):
        t = nl.load(a)
        out = nl.ndarray(t.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.tensor_copy(t, engine=nisa.tensor_engine))
        return out
    with pytest.raises(nki.KernelError) as e:
        nki.simulate_kernel(k, np.zeros((4, 8), np.float32))
    allowed = ", ".join(opcodes.engines("tensor_copy"))
    assert "tensor_copy cannot run on the tensor engine (runs on: %s)" % allowed in str(e.value)
