"""The three kernel kinds of a sweep: what identifies a run of one (its kernel
hash) and how one point runs. Both sides go through the simulator extension
(KernelHash, ConfigContentHash, the run summary), never a copy of them here.

A task is a plain dict (it crosses process and Ray boundaries):
  {"kind", "path", "function", "args", "args_path", "argv", "label", "config", "overrides", "timing_only"}
"""
import hashlib
import importlib.util
import json
import os
import subprocess
import sys

from nsim import _core


class PointError(RuntimeError):
    """One point failed (its kernel or config was rejected); the sweep records it and goes on."""


def load_module(path):
    """The user's Python file as a module (NKI kernels and their argument builders)."""
    name = "nsim_sweep_" + hashlib.sha256(path.encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _function(path, name):
    module = load_module(path)
    if not callable(getattr(module, name, None)):
        raise PointError("%s has no function '%s'" % (path, name))
    return getattr(module, name)


def _nki_parts(task):
    from nsim import nki
    kernel = _function(task["path"], task["function"])
    built = _function(task["args_path"], task["args"])()
    if isinstance(built, dict):
        args, kwargs = tuple(built.get("args", ())), dict(built.get("kwargs", {}))
    elif isinstance(built, (tuple, list)):
        args, kwargs = tuple(built), {}
    else:
        raise PointError("%s:%s() must return a tuple of arguments or {'args': ..., 'kwargs': ...}, got %s"
                         % (task["args_path"], task["args"], type(built).__name__))
    return (kernel if isinstance(kernel, nki.Kernel) else nki.Kernel(kernel)), args, kwargs


def kernel_hash(task):
    """The hash a run of `task` reports, known before running it: KernelHash of
    the .nk text or of the traced NKI kernel (which may depend on the config),
    or for a PyTorch script a hash of its bytes and arguments (a script runs
    many kernels; its own text and argv are what a rerun would change)."""
    core = _core.core()
    try:
        if task["kind"] == "nk":
            with open(task["path"]) as f:
                return core.kernel_hash(f.read(), os.path.basename(task["path"]))
        if task["kind"] == "nki":
            kernel, args, kwargs = _nki_parts(task)
            traced = kernel.trace(args, kwargs, task["config"], task["overrides"])
            return core.kernel_hash(traced.text, traced.program.name + ".nk")
    except PointError:
        raise
    except Exception as e:  # noqa: BLE001 - the user's module, builder or kernel failed: name it, no traceback
        raise PointError("%s: %s" % (type(e).__name__, e)) from None
    with open(task["path"], "rb") as f:
        digest = hashlib.sha256(f.read() + json.dumps(list(task["argv"])).encode()).hexdigest()
    return str(int(digest[:16], 16))


def run(task):
    """Runs one point; returns {"kernel_hash", "summary"} (summary.json, docs/output-schema.md)."""
    try:
        return {"nk": _run_nk, "nki": _run_nki, "torch": _run_torch}[task["kind"]](task)
    except PointError:
        raise
    except Exception as e:  # noqa: BLE001 - a user kernel's own exception fails its point, named
        raise PointError("%s: %s" % (type(e).__name__, e)) from None


def _run_nk(task):
    core = _core.core()
    with open(task["path"]) as f:
        text = f.read()
    raw = core.run(text, os.path.basename(task["path"]), task["config"], list(task["overrides"]), {}, [],
                   timing_only=task["timing_only"])
    return {"kernel_hash": raw["kernel_hash"], "summary": json.loads(raw["report"])}


def _run_nki(task):
    from nsim import nki
    kernel, args, kwargs = _nki_parts(task)
    result = nki.benchmark(kernel, *args, config=task["config"], overrides=tuple(task["overrides"]),
                           timing_only=task["timing_only"], **kwargs)
    return {"kernel_hash": result.kernel_hash, "summary": result.summary}


def _run_torch(task):
    """A PyTorch script in its own process (one process holds one SystemC
    simulation, and torch_nsim keeps its NeuronCores for the process)."""
    cmd = [sys.executable, "-m", "nsim.sweeps.torch_point", task["path"], task["config"], *task["overrides"],
           "--", *task["argv"]]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [_core.REPO_ROOT + "/python", _core.REPO_ROOT,
                                                                     os.environ.get("PYTHONPATH")])))
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=os.path.dirname(task["path"]))
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise PointError("%s exited with %d: %s" % (os.path.basename(task["path"]), done.returncode, tail))
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    return {"kernel_hash": kernel_hash(task), "summary": summary}


def build_id(kind):
    """The simulator build a kind runs on (the extension, or torch_nsim's for
    scripts), as a content hash: part of the nsim version of every row, so a
    changed model misses the cache."""
    path = _torch_library() if kind == "torch" else _core.core().__file__
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:12]


def _torch_library():
    folder = os.path.join(_core.REPO_ROOT, "torch_nsim")
    found = sorted(n for n in os.listdir(folder) if n.startswith("_C") and n.endswith(".so"))
    if not found:
        raise PointError("torch_nsim is not built: run `bash tools/setup.sh` (or pip install --no-build-isolation -e torch_nsim)")
    return os.path.join(folder, found[0])
