"""The simulator's ALU ops and activation functions (sim/kernel/alu_act_tables.h, through
`_nsim_core.alu_ops()` / `activation_funcs()`). nl.* element-wise and activation functions, and
the op tables of nki.isa, are made from these rows; the frontend keeps no list of its own."""
from .. import _core


def alu_ops():
    """[{"name", "nl_name", "commutative"}] in the simulator's order; nl_name "" = no nl function."""
    return list(_core.core().alu_ops())


def activation_funcs():
    """[{"name", "nl_name", "table_set"}] in the simulator's order."""
    return list(_core.core().activation_funcs())


def nl_alu_names():
    """{nl name: kernel-text ALU op name} of every ALU op nki.language names."""
    return {row["nl_name"]: row["name"] for row in alu_ops() if row["nl_name"]}


def commutative_alu_names():
    """The kernel-text names of the ALU ops whose operands may be swapped."""
    return tuple(row["name"] for row in alu_ops() if row["commutative"])


def nl_activation_names():
    """{nl name: kernel-text activation function name}."""
    return {row["nl_name"]: row["name"] for row in activation_funcs() if row["nl_name"]}
