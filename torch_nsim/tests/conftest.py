"""pytest set-up: import torch_nsim from this checkout (see torch_testing.py)."""
import pytest
import torch

import torch_testing  # noqa: F401  (puts the checkout on sys.path, imports torch_nsim)
import torch_nsim


@pytest.fixture(autouse=True)
def _fresh_settings():
    torch_nsim.set_cpu_fallback(False)
    torch_nsim.profiler.reset_neuron_config()
    yield
    torch.neuron.synchronize()
