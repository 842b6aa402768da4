import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import torch  # noqa: E402
import torch_nsim  # noqa: E402,F401


@pytest.fixture(autouse=True)
def _fresh_settings():
    torch_nsim.set_cpu_fallback(False)
    torch_nsim.profiler.reset_neuron_config()
    yield
    torch.neuron.synchronize()


def executions():
    """Kernel executions since the last mark: [(kernel, device_time_ps, span_us)]."""
    return torch_nsim._C.executions()


def mark():
    torch.neuron.synchronize()
    torch_nsim._C.mark_executions()
