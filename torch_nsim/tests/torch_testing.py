"""Helpers of the torch_nsim tests: the checkout's root and the kernel
executions the device ran. (Not in conftest.py: several test folders each
have a conftest module.)"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
# The checkout's nsim too: NeuronProfiler writes its Parquet tables with nsim.profile_tables.
if os.path.join(ROOT, "python") not in sys.path:
    sys.path.insert(1, os.path.join(ROOT, "python"))
sys.path.append(os.path.join(ROOT, "tools"))

import python_packages  # noqa: E402

# This checkout's torch_nsim, rebuilt from Bazel's current
# //torch_nsim:libnsim_core.so first (docs/python-packages.md).
python_packages.build_in_place("torch_nsim")

import torch  # noqa: E402
import torch_nsim  # noqa: E402,F401


def executions():
    """Kernel executions since the last mark: [(kernel, device_time_ps, span_us)]."""
    return torch_nsim._C.executions()


def mark():
    torch.neuron.synchronize()
    torch_nsim._C.mark_executions()
