"""The `torch_xla` names NKI tutorials' PyTorch scripts use, for a machine without torch-neuronx:
`xm.xla_device()` is the CPU, so the script's own torch ops run on the host (untimed) and each
`@nki.jit` kernel it calls runs on the simulator, returning torch tensors as on a Neuron device.
install() puts this in place only when no real torch_xla is importable."""
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


def install():
    """Makes `torch_xla`, `torch_xla.core` and `torch_xla.core.xla_model` this stand-in, unless a real
    torch_xla is installed. Idempotent."""
    existing = sys.modules.get("torch_xla")
    if existing is not None and not getattr(existing, "_nsim", False):
        return
    if existing is None:
        import importlib.util
        if importlib.util.find_spec("torch_xla") is not None:
            return
    root = types.ModuleType("torch_xla", __doc__)
    root._nsim = True
    root.__path__ = []
    core = types.ModuleType("torch_xla.core")
    core.__path__ = []
    xla_model = types.ModuleType("torch_xla.core.xla_model")
    for name, fn in _XLA_MODEL.items():
        setattr(xla_model, name, fn)
    root.core, core.xla_model = core, xla_model
    root.device, root.sync = _xla_device, _nothing
    sys.modules.update({"torch_xla": root, "torch_xla.core": core, "torch_xla.core.xla_model": xla_model})


def uninstall():
    for name in ("torch_xla.core.xla_model", "torch_xla.core", "torch_xla"):
        module = sys.modules.get(name)
        if module is not None and getattr(sys.modules.get("torch_xla"), "_nsim", False):
            del sys.modules[name]
