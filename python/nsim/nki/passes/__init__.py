"""The compiler model: named passes between the traced kernel and its .nk text, each a mechanism of
the Neuron compiler with a documented or measured cause (see each module's docstring).

    buffer_rule  how many physical buffers each loop-local tile rotates over (at trace time)
    licm         loop-invariant code motion: work a later iteration repeats unchanged is done once
    fusion       a loop loading a declared tile's blocks is fused into the loop reading them, block by block
    dma_queues   which engine triggers each DMA and on which of its queues
    liveness     buffers whose values are never live together share bytes (when they do not fit apart)
    reroll       the .nk text keeps nl.affine_range / sequential_range loops as loops (reroll.py);
                 an encoding of the same instructions, not a compiler mechanism: off changes no result

`nki.jit(passes={"licm": False, ...})` turns passes off one by one for what-ifs;
`@nki.compiler.skip_middle_end_transformations` turns the middle end (licm, fusion) off, as on hardware;
Beta 1's `nki.jit(disable_allocation_opt=True)` turns the allocation passes (buffer_rule, liveness) off.
`explain=True` keeps every decision (Traced.decisions / BenchmarkResult.decisions).
For scripts run unchanged (python3 -m nsim.nki FILE.py), the environment does the same:
NSIM_PASSES=licm=off,dma_queues=off turns passes off, NSIM_EXPLAIN=1 prints each traced kernel's
decisions to stderr."""
import os
import sys

from ..errors import KernelError

PASSES = ("buffer_rule", "licm", "fusion", "dma_queues", "liveness", "reroll")  # in the order they run
MIDDLE_END = ("licm", "fusion")                     # off under skip_middle_end_transformations
ALLOCATION = ("buffer_rule", "liveness")            # off under disable_allocation_opt


class Pipeline:
    """Which passes run for one kernel, and the decisions they made."""

    def __init__(self, kernel_name, passes=None, directives=(), nki_options=None, explain=False):
        passes_given = passes
        env = env_passes()
        passes = dict(env, **(passes or {}))
        unknown = sorted(set(passes) - set(PASSES))
        if unknown:
            raise KernelError("nki.jit(passes=...) of kernel '%s': no pass named '%s' (passes: %s)"
                              % (kernel_name, unknown[0], ", ".join(PASSES)))
        self.enabled = {name: bool(passes.get(name, True)) for name in PASSES}
        self.why_off = {name: "NSIM_PASSES" if name in env and name not in (passes_given or {}) else
                        "passes={'%s': False}" % name for name in PASSES if not self.enabled[name]}
        if "skip_middle_end_transformations" in directives:
            self._off(MIDDLE_END, "@nki.compiler.skip_middle_end_transformations")
        if (nki_options or {}).get("disable_allocation_opt"):
            self._off(ALLOCATION, "disable_allocation_opt=True")
        self.explain = explain or os.environ.get("NSIM_EXPLAIN", "") not in ("", "0")
        self.decisions = []

    def _off(self, names, why):
        for name in names:
            if self.enabled[name]:
                self.enabled[name] = False
                self.why_off[name] = why

    def on(self, name):
        return self.enabled[name]

    def decide(self, pass_name, subject, decision, why, where=None, about=None):
        """Records one decision (kept only with explain=True; the decision is made either way).
        `about`: what it concerns, for dropping decisions about what the kernel never used."""
        if self.explain:
            self.decisions.append({"pass": pass_name, "subject": subject, "decision": decision, "why": why,
                                   "where": "%s:%d" % where if where else None, "about": about})

    def used_decisions(self, used):
        """The decisions, without those `about` something `used(about)` says the kernel never used
        (e.g. the tile nl.load returned before `t[...] = nl.load(...)` wrote straight into t)."""
        return [{k: v for k, v in d.items() if k != "about"} for d in self.decisions
                if d["about"] is None or used(d["about"])]

    def summary(self):
        """The passes that ran and why the others did not, as decisions."""
        return [{"pass": name, "subject": "kernel", "decision": "on" if on else "off",
                 "why": "default" if on else self.why_off[name], "where": None}
                for name, on in self.enabled.items()]


def env_passes():
    """NSIM_PASSES=name=on|off,...: passes to turn off (or on) for every kernel, e.g. in unchanged scripts."""
    out = {}
    for item in filter(None, os.environ.get("NSIM_PASSES", "").split(",")):
        name, _, value = item.partition("=")
        if name.strip() not in PASSES or value.strip() not in ("on", "off", "1", "0"):
            raise KernelError("NSIM_PASSES=%s: expected name=on|off with a name of %s"
                              % (os.environ["NSIM_PASSES"], ", ".join(PASSES)))
        out[name.strip()] = value.strip() in ("on", "1")
    return out


def print_decisions(kernel_name, decisions, stream=None):
    """The decisions as lines: `kernel: pass: subject -> decision (why) [file:line]`."""
    stream = stream or sys.stderr
    for d in decisions:
        stream.write("%s: %s: %s -> %s (%s)%s\n" % (kernel_name, d["pass"], d["subject"], d["decision"], d["why"],
                                                  " [%s]" % d["where"] if d["where"] else ""))
