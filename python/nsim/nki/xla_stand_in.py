"""The `torch_xla` and `torch_neuronx` names NKI tutorials' PyTorch scripts use, for a machine without
torch-neuronx: `xm.xla_device()` is the CPU, so the script's own torch ops run on the host (untimed)
and each `@nki.jit` kernel it calls runs on the simulator, returning torch tensors as on a Neuron
device; `torch_neuronx.trace(fn, example_inputs)` is `fn` itself (nothing to compile: its torch ops
run on the host, its kernels on the simulator). install() puts each in place only when the real
package is not importable."""
import sys
import types


def _xla_device(n=None, devkind=None):
    import torch
    return torch.device("cpu")


def _nothing(*args, **kwargs):
    return None


def _single_process(value):
    return lambda *args, **kwargs: value


# name -> what it does on one simulated NeuronCore run from one host process
_XLA_MODEL = {
    "xla_device": _xla_device,
    "mark_step": _nothing,          # no lazy graph to cut: ops already ran
    "wait_device_ops": _nothing,
    "master_print": print,
    "xrt_world_size": _single_process(1),
    "world_size": _single_process(1),
    "get_ordinal": _single_process(0),
    "is_master_ordinal": _single_process(True),
}


def _trace(func, example_inputs=None, *args, **kwargs):
    """torch_neuronx.trace: the traced callable is the function (or module) itself."""
    if not callable(func):
        raise TypeError(f"torch_neuronx.trace: expected a function or torch.nn.Module, got {type(func).__name__}")
    return func


def _nki_jit(func=None, **kwargs):
    from .jit import jit
    return jit(func, **kwargs) if func is not None else (lambda f: jit(f, **kwargs))


# torch_neuronx name -> its stand-in
_NEURONX = {"trace": _trace, "nki_jit": _nki_jit, "async_load": _nothing}


def _absent(name):
    """True when `name` is neither imported nor importable (a real package is never replaced)."""
    existing = sys.modules.get(name)
    if existing is not None:
        return getattr(existing, "_nsim", False)
    import importlib.util
    return importlib.util.find_spec(name) is None


def _module(name, names=None):
    module = types.ModuleType(name, __doc__)
    module._nsim = True
    module.__path__ = []
    for attr, fn in (names or {}).items():
        setattr(module, attr, fn)
    return module


def install():
    """Makes `torch_xla`, `torch_xla.core`, `torch_xla.core.xla_model` and `torch_neuronx` these
    stand-ins, each unless the real package is installed. Idempotent."""
    if _absent("torch_xla"):
        root, core, xla_model = _module("torch_xla"), _module("torch_xla.core"), _module("torch_xla.core.xla_model", _XLA_MODEL)
        root.core, core.xla_model = core, xla_model
        root.device, root.sync = _xla_device, _nothing
        sys.modules.update({"torch_xla": root, "torch_xla.core": core, "torch_xla.core.xla_model": xla_model})
    if _absent("torch_neuronx"):
        sys.modules["torch_neuronx"] = _module("torch_neuronx", _NEURONX)


_INSTALLED = ("torch_xla.core.xla_model", "torch_xla.core", "torch_xla", "torch_neuronx")


def uninstall():
    for name in _INSTALLED:
        if getattr(sys.modules.get(name), "_nsim", False):
            del sys.modules[name]
