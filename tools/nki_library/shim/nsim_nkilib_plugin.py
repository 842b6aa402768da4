"""pytest plugin loaded first (-p) by tools/nki_library/run.py: `nki` (and `neuronxcc.nki`) name nsim
before the NKI Library's conftest imports them, and the harness's modules that the public
repository lacks or that serve hardware runs only (host locking, neuron_dtypes) are stand-ins
whose every attribute is a placeholder class: simulation mode never calls them."""
import importlib
import importlib.abc
import importlib.machinery
import sys
import types

import nsim.nki

nsim.nki.install()

# Modules the public harness imports but does not ship (its private test.utils modules) or that
# only hardware runs need: found last, after every real module.
STAND_IN_PREFIXES = ("test.utils.", "neuron_dtypes")


class _StandIn(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = type(name, (), {"__init__": lambda self, *a, **k: None, "__call__": lambda self, *a, **k: None})
        setattr(self, name, value)
        return value


class _StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.startswith(STAND_IN_PREFIXES):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StandIn(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


sys.meta_path.append(_StandInFinder())


def pytest_sessionstart(session):
    """The public harness's simulation path reads Orchestrator._compiled_kernel, which only its
    compile path sets: default it to None (no compiled kernel) so validation runs."""
    try:
        orchestrator = importlib.import_module("test.utils.test_orchestrator").Orchestrator
    except (ImportError, AttributeError):
        return
    if not hasattr(orchestrator, "_compiled_kernel"):
        orchestrator._compiled_kernel = None
