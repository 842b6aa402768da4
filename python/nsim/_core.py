"""Loads the simulator extension `_nsim_core`.

It is the module nsim/_nsim_core*.so that the package's build step
(python/setup.py, run by `pip install` and by the test suite) installed
next to this file, or $NSIM_CORE_SO (a path to a .so) when that is set.
Configs are found through $NSIM_CONFIG_DIR, set here to the package's
configs/ when unset.
"""
import importlib
import importlib.util
import os

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# The checkout the package lives in when installed editable (tools/setup.sh):
# the sweeps run its Bazel-built `nsim` binary and its torch_nsim. Not a
# checkout for a package pip-installed elsewhere.
REPO_ROOT = os.path.dirname(os.path.dirname(PACKAGE_DIR))
CONFIG_DIR = os.path.join(PACKAGE_DIR, "configs")
INSTALL_HINT = "run `bash tools/setup.sh` in the nsim repository (or `pip install` its python/ directory)"


def _from_path(path):
    if not os.path.isfile(path):
        raise ImportError(f"NSIM_CORE_SO={path!r} is not a file")
    spec = importlib.util.spec_from_file_location("_nsim_core", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load():
    os.environ.setdefault("NSIM_CONFIG_DIR", CONFIG_DIR)
    if os.environ.get("NSIM_CORE_SO"):
        return _from_path(os.environ["NSIM_CORE_SO"])
    try:
        return importlib.import_module("nsim._nsim_core")
    except ModuleNotFoundError as e:
        raise ImportError(f"the nsim simulator extension is not installed in {PACKAGE_DIR}: {INSTALL_HINT}") from e


_module = None


def core():
    """The extension module, loaded on first use."""
    global _module
    if _module is None:
        _module = _load()
    return _module
