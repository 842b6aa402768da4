"""torch_nsim: PyTorch on the simulated AWS Trainium NeuronCore.

``import torch_nsim`` makes ``"neuron"`` a PyTorch device (PrivateUse1,
renamed as TorchNeuron does) whose memory is the simulated HBM and whose ops
run the simulator's Neuron kernels; ``torch.neuron`` is its device module,
``torch.compile(backend="neuron")`` compiles a graph to one kernel, and
``torch.profiler`` reports simulated device time in the NEURON columns.

Hardware: ``torch_nsim.set_config("trn1")`` (a config name or a .yaml path,
plus "key=value" overrides) or the environment variable TORCH_NSIM_CONFIG;
default trn2. It applies to NeuronCores first used after the call.
"""
import os

# Kineto logs every profiler start/stop (and warns about an empty GPU trace): errors only.
os.environ.setdefault("KINETO_LOG_LEVEL", "4")

import torch  # noqa: E402

# The package carries the hardware configs (configs/, tools/python_packages.py).
os.environ.setdefault("NSIM_CONFIG_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs"))

if torch._C._get_privateuse1_backend_name() != "neuron":
    torch.utils.rename_privateuse1_backend("neuron")

try:
    from torch_nsim import _C  # noqa: E402  registers kernels, allocator, guard, profiler plugin
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        f"torch_nsim: the C++ extension is not built ({e}). Run `bash tools/setup.sh` in the nsim "
        "repository (or: bazel build //torch_nsim:libnsim_core.so && "
        "pip install --no-build-isolation -e torch_nsim)") from e

from torch_nsim import device_module as _device_module  # noqa: E402

torch._register_device_module("neuron", _device_module)
torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_storage=True)

DEFAULT_CONFIG = "trn2"
CONFIG_ENV = "TORCH_NSIM_CONFIG"


def set_config(name, overrides=()):
    """Hardware config of the NeuronCores created from now on: a name in
    configs/ ("trn1", "trn2", "trn3", ...) or a .yaml path, plus "key=value"
    overrides. A bad name or override raises RuntimeError now."""
    _C.set_config(str(name), [str(o) for o in overrides])


def config_name():
    return _C.config_name()


def set_cpu_fallback(enabled=True):
    """Opt in to running ops without a neuron kernel on the CPU (with a
    warning each time, and a "neuron::cpu_fallback <op>" range in the
    profile). Off by default: such an op is an error naming it."""
    _C.set_cpu_fallback(bool(enabled))


def all_reduce_(tensors):
    """Sums ``tensors`` (one per neuron device of one chip, same shape and
    float dtype, contiguous) in place on every device, as
    ``torch.distributed.all_reduce`` would across a chip's NeuronCores: a ring
    over DMA, timed by the chip model and recorded on each device. Make the
    devices first with ``torch_nsim.set_device_count``."""
    torch.ops.neuron.all_reduce_(list(tensors))


def wall_time():
    """Real seconds this process spent simulating (not simulated time)."""
    return _C.wall_time()


set_config(os.environ.get(CONFIG_ENV, DEFAULT_CONFIG))

from torch_nsim import autograd as _autograd  # noqa: E402

_autograd.register()

from torch_nsim import profiler  # noqa: E402,F401
from torch_nsim import compiler  # noqa: E402,F401  registers torch.compile(backend="neuron")
