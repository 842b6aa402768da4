"""`nsim.nki.install()`: the NKI module names resolve to the simulator, so a kernel file written
for NKI (`import nki`, `import nki.language as nl`, Beta 1's `from neuronxcc import nki`) runs
unchanged. It aliases sys.modules entries, as the NKI Library's own test harness swaps its CPU
simulator in; `python3 -m nsim.nki FILE.py` does the same for a script."""
import sys
import types

from . import xla_stand_in

# alias -> the nsim.nki module it names (relative to this package)
_MODULES = {
    "nki": "", "nki.language": ".language", "nki.isa": ".isa", "nki.isa.constants": ".constants",
    "nki.typing": ".nki_typing", "nki.compiler": ".compiler", "nki.collectives": ".collectives",
    "neuronxcc.nki": "", "neuronxcc.nki.language": ".language", "neuronxcc.nki.isa": ".isa",
    "neuronxcc.nki.typing": ".nki_typing", "neuronxcc.nki.compiler": ".compiler",
    "neuronxcc.nki.isa.constants": ".constants",
}


def install():
    """Makes `nki`, `nki.language`, `nki.isa`, `nki.isa.constants`, `nki.typing`, `nki.compiler`,
    `nki.collectives` and `neuronxcc.nki.*` the simulator's modules, and (without a real torch_xla)
    `torch_xla.core.xla_model` a stand-in whose device is the CPU (xla_stand_in.py). Idempotent."""
    import importlib
    for alias, target in _MODULES.items():
        sys.modules[alias] = importlib.import_module("nsim.nki" + target)
    neuronxcc = sys.modules.get("neuronxcc")
    if neuronxcc is None or not getattr(neuronxcc, "_nsim", False):
        neuronxcc = types.ModuleType("neuronxcc", "Beta 1 NKI names, served by nsim.nki")
        neuronxcc._nsim = True
        neuronxcc.__path__ = []
        sys.modules["neuronxcc"] = neuronxcc
    neuronxcc.nki = sys.modules["neuronxcc.nki"]
    xla_stand_in.install()


def uninstall():
    """Removes the aliases install() made."""
    xla_stand_in.uninstall()
    for alias in list(_MODULES) + ["neuronxcc"]:
        module = sys.modules.get(alias)
        if module is not None and (module.__name__.startswith("nsim.nki") or getattr(module, "_nsim", False)):
            del sys.modules[alias]
