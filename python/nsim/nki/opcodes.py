"""The simulator's opcode table (sim/kernel/opcode_table.h, through `_nsim_core.opcode_table()`):
the engines each opcode may run on. The frontend checks engines against it and keeps no list of its own."""
from .. import _core
from .errors import fail

_table = None


def table():
    """{opcode name: {"name", "hw_name", "engines", "operands"}}, loaded from the extension on first use."""
    global _table
    if _table is None:
        _table = {row["name"]: row for row in _core.core().opcode_table()}
    return _table


def engines(opcode):
    """The engines `opcode` may run on, in the simulator's order ("tensor", "vector", ...)."""
    row = table().get(opcode)
    if row is None:
        fail("frontend bug: opcode %r is not in the simulator's opcode table (known: %s)"
             % (opcode, ", ".join(table())))
    return tuple(row["engines"])


def check_engine(engine, opcode, what):
    """Fails with the allowed engines unless `engine` may run `opcode`."""
    allowed = engines(opcode)
    if engine not in allowed:
        fail("%s cannot run on the %s engine (runs on: %s)" % (what, engine, ", ".join(allowed)))
    return engine
