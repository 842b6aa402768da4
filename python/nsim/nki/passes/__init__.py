"""The compiler model: named passes between the traced kernel and its .nk text, each a mechanism of
the Neuron compiler with a documented or measured cause (see each module's docstring).

    buffer_rule  how many physical buffers each loop-local tile rotates over (at trace time)
    licm         loop-invariant code motion: work a later iteration repeats unchanged is done once
    dma_queues   which engine triggers each DMA and on which of its queues

`nki.jit(passes={"licm": False, ...})` turns passes off one by one for what-ifs;
`@nki.compiler.skip_middle_end_transformations` turns the middle end (licm) off, as on hardware;
Beta 1's `nki.jit(disable_allocation_opt=True)` turns the allocation passes (buffer_rule) off.
`explain=True` keeps every decision (Traced.decisions / BenchmarkResult.decisions)."""
from ..errors import KernelError

PASSES = ("buffer_rule", "licm", "dma_queues")      # in the order they run
MIDDLE_END = ("licm",)                              # off under skip_middle_end_transformations
ALLOCATION = ("buffer_rule",)                       # off under disable_allocation_opt


class Pipeline:
    """Which passes run for one kernel, and the decisions they made."""

    def __init__(self, kernel_name, passes=None, directives=(), nki_options=None, explain=False):
        passes = dict(passes or {})
        unknown = sorted(set(passes) - set(PASSES))
        if unknown:
            raise KernelError("nki.jit(passes=...) of kernel '%s': no pass named '%s' (passes: %s)"
                              % (kernel_name, unknown[0], ", ".join(PASSES)))
        self.enabled = {name: bool(passes.get(name, True)) for name in PASSES}
        self.why_off = {name: "passes={'%s': False}" % name for name in PASSES if not self.enabled[name]}
        if "skip_middle_end_transformations" in directives:
            self._off(MIDDLE_END, "@nki.compiler.skip_middle_end_transformations")
        if (nki_options or {}).get("disable_allocation_opt"):
            self._off(ALLOCATION, "disable_allocation_opt=True")
        self.explain = explain
        self.decisions = []

    def _off(self, names, why):
        for name in names:
            if self.enabled[name]:
                self.enabled[name] = False
                self.why_off[name] = why

    def on(self, name):
        return self.enabled[name]

    def decide(self, pass_name, subject, decision, why, where=None):
        """Records one decision (kept only with explain=True; the decision is made either way)."""
        if self.explain:
            self.decisions.append({"pass": pass_name, "subject": subject, "decision": decision, "why": why,
                                   "where": "%s:%d" % where if where else None})

    def summary(self):
        """The passes that ran and why the others did not, as decisions."""
        return [{"pass": name, "subject": "kernel", "decision": "on" if on else "off",
                 "why": "default" if on else self.why_off[name], "where": None}
                for name, on in self.enabled.items()]
