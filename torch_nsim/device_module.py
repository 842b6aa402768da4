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


# Each device's random state, kept by the extension (csrc/random_ops.h) as
# CUDA keeps its counter-based generator's: a 64-bit seed and a 64-bit offset
# (16 bytes, little-endian). Every random kernel on the device draws the key of
# (seed, offset) and advances offset by one, so the same seed gives the same
# numbers whatever other (non-random) ops ran in between. PyTorch's seeding
# helpers (torch.manual_seed, fork_rng, the test suites' seed freezing) read
# and restore this state on every registered device.
_MASK64 = 0xFFFFFFFFFFFFFFFF


def _signed(v):
    return v - (1 << 64) if v >= (1 << 63) else v


def get_rng_state(device=None):
    seed, offset = _C.rng_state(_index(device) if device is not None else current_device())
    return torch.tensor([_signed(seed), _signed(offset)], dtype=torch.int64).view(torch.uint8)


def set_rng_state(new_state, device=None):
    if not isinstance(new_state, torch.Tensor) or new_state.dtype != torch.uint8 or new_state.numel() != 16:
        raise TypeError("torch.neuron.set_rng_state: expected the 16-byte torch.uint8 tensor get_rng_state returns")
    seed, offset = new_state.cpu().contiguous().view(torch.int64).tolist()
    _C.set_rng_state(_index(device) if device is not None else current_device(), seed & _MASK64, offset & _MASK64)


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states):
    for i, s in enumerate(new_states):
        set_rng_state(s, i)


def manual_seed(seed):
    _C.set_rng_state(current_device(), int(seed) & _MASK64, 0)


def manual_seed_all(seed):
    for i in range(device_count()):
        _C.set_rng_state(i, int(seed) & _MASK64, 0)


def seed():
    manual_seed(torch.randint(0, 2 ** 62, ()).item())


def seed_all():
    manual_seed_all(torch.randint(0, 2 ** 62, ()).item())


def initial_seed():
    return _C.rng_state(current_device())[0]


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
