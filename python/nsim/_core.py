"""Loads the simulator extension `_nsim_core` built by Bazel.

Looked up, in order: $NSIM_CORE_SO (a path to the .so), then
<repo>/bazel-bin/python/_nsim_core.so of the checkout this package lives in.
Configs are found through $NSIM_CONFIG_DIR, set here to <repo>/configs when
unset.
"""
import importlib.util
import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BAZEL_TARGET = "//python:_nsim_core.so"


def _candidates():
    if os.environ.get("NSIM_CORE_SO"):
        yield os.environ["NSIM_CORE_SO"]
    yield os.path.join(REPO_ROOT, "bazel-bin", "python", "_nsim_core.so")


def _load():
    os.environ.setdefault("NSIM_CONFIG_DIR", os.path.join(REPO_ROOT, "configs"))
    tried = []
    for path in _candidates():
        tried.append(path)
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("_nsim_core", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    raise ImportError(
        "the nsim simulator extension is not built: run `bazel build %s` in %s "
        "(looked for: %s)" % (BAZEL_TARGET, REPO_ROOT, ", ".join(tried)))


_module = None


def core():
    """The extension module, loaded on first use."""
    global _module
    if _module is None:
        _module = _load()
    return _module
