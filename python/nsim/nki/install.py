"""`nsim.nki.install()`: the NKI module names resolve to the simulator, so a kernel file written
for NKI (`import nki`, `import nki.language as nl`, Beta 1's `from neuronxcc import nki`) runs
unchanged. It aliases sys.modules entries, as the NKI Library's own test harness swaps its CPU
simulator in; `python3 -m nsim.nki FILE.py` does the same for a script."""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

from . import xla_stand_in

# alias -> the nsim.nki module it names (relative to this package)
_MODULES = {
    "nki": "", "nki.language": ".language", "nki.isa": ".isa", "nki.isa.constants": ".constants",
    "nki.typing": ".nki_typing", "nki.compiler": ".compiler", "nki.collectives": ".collectives",
    "nki.lnc": ".lnc",
    "neuronxcc.nki": "", "neuronxcc.nki.language": ".language", "neuronxcc.nki.isa": ".isa",
    "neuronxcc.nki.typing": ".nki_typing", "neuronxcc.nki.compiler": ".compiler",
    "neuronxcc.nki.isa.constants": ".constants",
}


def install():
    """Makes `nki`, `nki.language`, `nki.isa`, `nki.isa.constants`, `nki.typing`, `nki.compiler`,
    `nki.collectives`, `nki.lnc` and `neuronxcc.nki.*` the simulator's modules, and (without a real torch_xla)
    `torch_xla.core.xla_model` a stand-in whose device is the CPU (xla_stand_in.py). Idempotent."""
    for alias, target in _MODULES.items():
        sys.modules[alias] = importlib.import_module("nsim.nki" + target)
    neuronxcc = sys.modules.get("neuronxcc")
    if neuronxcc is None or not getattr(neuronxcc, "_nsim", False):
        neuronxcc = types.ModuleType("neuronxcc", "Beta 1 NKI names, served by nsim.nki")
        neuronxcc._nsim = True
        neuronxcc.__path__ = []
        sys.modules["neuronxcc"] = neuronxcc
    neuronxcc.nki = sys.modules["neuronxcc.nki"]
    if not any(isinstance(f, _DocsExamples) for f in sys.meta_path):
        sys.meta_path.append(_DocsExamples())
    xla_stand_in.install()


class _DocsExamples(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`neuronxcc.nki.docs.examples.DIR.MODULE` (the Neuron package's copy of the NKI documentation's
    examples, which the tutorials' scripts import) is MODULE.py found on sys.path: the tutorials ship
    the same files beside their scripts. Its parent names are empty packages."""
    _PREFIX = "neuronxcc.nki.docs"

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self._PREFIX and not fullname.startswith(self._PREFIX + "."):
            return None
        depth = fullname.count(".")  # neuronxcc.nki.docs.examples.DIR.MODULE: 5
        return importlib.machinery.ModuleSpec(fullname, self, is_package=depth < 5)

    def create_module(self, spec):
        if spec.name.count(".") < 5:
            return None
        leaf = spec.name.rsplit(".", 1)[1]
        if importlib.util.find_spec(leaf) is None:
            raise ImportError(f"{spec.name} is the Neuron package's copy of an NKI documentation example; "
                              f"nsim.nki imports {leaf}.py from sys.path instead (the tutorials ship it beside "
                              f"their scripts) and found none: put {leaf}.py beside the script", name=spec.name)
        return importlib.import_module(leaf)

    def exec_module(self, module):
        if module.__spec__ is None or not module.__name__.startswith(self._PREFIX):
            return  # the sys.path module itself, already executed
        module.__path__ = []


def uninstall():
    """Removes the aliases install() made."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _DocsExamples)]
    xla_stand_in.uninstall()
    for alias in list(_MODULES) + ["neuronxcc"]:
        module = sys.modules.get(alias)
        if module is not None and (module.__name__.startswith("nsim.nki") or getattr(module, "_nsim", False)):
            del sys.modules[alias]
