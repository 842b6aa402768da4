"""torch.neuron: the device module of the simulated NeuronCores."""
import contextlib

import torch

from torch_nsim import _C


def is_available():
    return True


def is_initialized():
    return True


def _lazy_init():
    pass


def _is_in_bad_fork():
    return False


def manual_seed_all(seed):
    """The device draws no random numbers of its own (make random tensors on
    the CPU and copy them): nothing to seed."""


def manual_seed(seed):
    manual_seed_all(seed)


def device_count():
    return _C.device_count()


def current_device():
    return _C.current_device()


def set_device(device):
    _C.set_device(_index(device))


def synchronize(device=None):
    """The host waits for all work queued on the device (its simulated clock
    moves to when the device finishes)."""
    _C.synchronize(_index(device) if device is not None else -1)


def set_device_count(n):
    """How many neuron devices torch sees (default 1): neuron:0 .. neuron:n-1."""
    _C.set_device_count(int(n))


def set_lnc(n):
    """Physical NeuronCores per neuron device for devices first used from now
    on: 2 makes each device a logical core of two physical cores that every op
    splits its rows over (TorchNeuron's LNC=2); 0 is the config's default.
    A value that does not divide the chip's cores raises RuntimeError."""
    _C.set_lnc(int(n))


def lnc():
    return _C.lnc()


def memory_stats(device=None):
    return _C.memory_stats(_index(device) if device is not None else -1)


def memory_allocated(device=None):
    return memory_stats(device)["bytes_in_use"]


def current_stream(device=None):
    """The stream this thread's ops on `device` are queued on."""
    return torch.accelerator.current_stream(_device(device))


def default_stream(device=None):
    """Stream 0 of the device: the runtime's default stream."""
    d = _device(device)
    return torch.Stream(stream_id=0, device_index=d.index, device_type=d.type)


def _device(device):
    return torch.device("neuron", _index(device) if device is not None else current_device())


@contextlib.contextmanager
def stream(s):
    """Queue the ops of the block on stream `s` (a torch.Stream on neuron)."""
    prev = torch.accelerator.current_stream(s.device)
    torch.accelerator.set_stream(s)
    try:
        yield s
    finally:
        torch.accelerator.set_stream(prev)


Stream = torch.Stream
Event = torch.Event


def _index(device):
    if isinstance(device, int):
        return device
    d = torch.device(device)
    if d.type != "neuron":
        raise ValueError(f"torch.neuron: expected a neuron device, got {d}")
    return d.index if d.index is not None else current_device()
