"""SBUF and PSUM capacity: what the kernel's buffers need, and fitting them.

A physical buffer keeps its own bytes for the whole kernel (the loader places
each declared tensor at its own offset) as long as the buffers fit side by
side: SBUF tensors as the loader places them (the extension's onchip_layout,
the simulator's one layout rule), PSUM tiles in whole banks (stricter than the
loader, which packs PSUM tensors within banks; docs/architecture.md).
Loop-local tiles get the buffers of the buffer_rule pass (passes/buffer_rule.py);
when those do not fit, the largest rule-allocated sites drop to one buffer
(as the NKI compiler's allocator trades pipelining for capacity), then the
liveness pass (passes/liveness.py) lets buffers whose values are never live
together share bytes (decl.at), before it is an error.
"""
from .. import _core
from .errors import KernelError


def footprint(decl, info):
    """SBUF bytes per partition, or PSUM banks, of one buffer."""
    if decl.space == "sbuf":
        return _core.core().onchip_layout(info["psum_bank_bytes"], [("sbuf", decl.bytes_per_partition)])["sbuf_used"]
    return -(-decl.bytes_per_partition // info["psum_bank_bytes"])


def capacity(space, info):
    return info["sbuf_bytes_per_partition"] if space == "sbuf" else info["psum_banks"]


def used(program, space):
    return sum(footprint(d, program.info) for d in program.used_decls() if d.space == space)


def shrink_plan(program):
    """{site: 1} for the largest rule-allocated multi-buffered sites whose second buffers must go
    for SBUF and PSUM to fit; empty when it fits or nothing can shrink."""
    plan = {}
    for space in ("sbuf", "psum"):
        excess = used(program, space) - capacity(space, program.info)
        sites = [e for e in program.sites() if e["auto"] and e["space"] == space and len(e["decls"]) > 1]
        sites.sort(key=lambda e: -footprint(e["decls"][0], program.info))
        used_names = {d.name for d in program.used_decls()}
        for e in sites:
            if excess <= 0:
                break
            extra = [d for d in e["decls"][1:] if d.name in used_names]
            plan[e["key"]] = 1
            excess -= sum(footprint(d, program.info) for d in extra)
    return plan


def _end(decl, info):
    """Where a buffer the liveness pass placed (decl.at) ends: SBUF bytes, PSUM banks."""
    if decl.space == "sbuf":
        return decl.at + footprint(decl, info)
    return decl.at // info["psum_bank_bytes"] + footprint(decl, info)


def check_capacity(program):
    """Raises KernelError naming the tile at which SBUF or PSUM overflows."""
    info = program.info
    total = {"sbuf": 0, "psum": 0}
    for d in program.used_decls():
        if d.space not in total:
            continue
        placed = getattr(d, "at", None) is not None
        total[d.space] = max(total[d.space], _end(d, info)) if placed else total[d.space] + footprint(d, info)
        if total[d.space] <= capacity(d.space, info):
            continue
        if placed:
            unit = "B per partition" if d.space == "sbuf" else "banks"
            has = "%d B per partition" % capacity("sbuf", info) if d.space == "sbuf" else \
                "%d banks of %d B" % (info["psum_banks"], info["psum_bank_bytes"])
            raise KernelError(
                "%s over capacity at this tile (%s, %d buffer(s) of %d B per partition): the kernel's tiles need "
                "%d %s, %s has %s, even with tiles whose values are never live together sharing bytes (the "
                "liveness pass); use smaller tiles or fewer of them live at once"
                % (d.space.upper(), d.name, d.buffers, d.bytes_per_partition, total[d.space], unit, info["name"],
                   has), d.where)
        if d.space == "sbuf":
            raise KernelError(
                "SBUF over capacity at this tile (%s, %d buffer(s) of %d B per partition): the kernel's tiles "
                "need %d B per partition, %s has %d; reduce the tile size or num_buffers, or loop with "
                "nl.affine_range (tiles of Python loops are not reused)"
                % (d.name, d.buffers, d.bytes_per_partition, used(program, "sbuf"), info["name"],
                   capacity("sbuf", info)), d.where)
        raise KernelError(
            "PSUM over capacity at this tile (%s, %d buffer(s) of %d B per partition): the kernel's PSUM tiles "
            "need %d banks, %s has %d banks of %d B; use fewer PSUM tiles or num_buffers"
            % (d.name, d.buffers, d.bytes_per_partition, used(program, "psum"), info["name"], info["psum_banks"],
               info["psum_bank_bytes"]), d.where)
