"""torch.profiler on the simulated NeuronCore, TorchNeuron-style.

    from torch_nsim.profiler import NeuronConfig, NeuronProfiler, ProfileMode
    cfg = NeuronConfig(modes=[ProfileMode.DEVICE, ProfileMode.RUNTIME],
                       capture_enabled_for_nc="0", profile_output_dir="out")
    with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1],
                                schedule=torch.profiler.schedule(wait=2, warmup=1, active=1),
                                experimental_config=cfg,
                                on_trace_ready=NeuronProfiler(cfg).export_trace) as prof:
        ...
    print(prof.key_averages().table(sort_by="self_privateuse1_time_total"))

How it works (PyTorch 2.13 mechanisms): the extension registers a Kineto
IActivityProfiler with REGISTER_PRIVATEUSE1_PROFILER. With the PrivateUse1
activity, torch.profiler runs in KINETO_PRIVATEUSE1 mode and hands the
plugin the correlation id of every op it records; each simulated kernel
execution becomes a Kineto kernel activity on the PrivateUse1 device,
named ``nc_exec_running``, lasting its simulated device time and linked to
the op that launched it. key_averages() then fills Self NEURON / NEURON
total for that op (and an ``nc_exec_running`` device row). The activity is
placed at the wall-clock time of its launch (the simulated clock and the
host's wall clock are different clocks); its simulated start is in its args.

NeuronConfig is TorchNeuron's experimental_config: it subclasses torch's
_ExperimentalConfig (so torch accepts it) and hands its settings to the
simulator's own profiler, which records the same window with device capture
(DEVICE mode: the capture cost the C++ study charges, capture.* in the
config) and writes ``trace.json`` (framework, runtime, hardware and engine
lanes), NEFF/NTFF pairs and the device summary into profile_output_dir.
NeuronProfiler(cfg).export_trace additionally writes torch's own Kineto
trace there as ``kineto_trace.json``. Without a NeuronConfig, device capture
is on for every core and nothing is written.
"""
import enum
import os

import torch
from torch._C._profiler import _ExperimentalConfig

from torch_nsim import _C


class ProfileMode(enum.Enum):
    DEVICE = "DEVICE"    # engine instructions, NEFF/NTFF pairs, device summary (device capture)
    RUNTIME = "RUNTIME"  # neuron_rt / neuron_hw lanes


class NeuronConfig(_ExperimentalConfig):
    def __init__(self, modes=(ProfileMode.DEVICE, ProfileMode.RUNTIME), capture_enabled_for_nc="",
                 correlate_device_time=True, profile_output_dir="./profile_output"):
        super().__init__()
        self.modes = [ProfileMode(m) for m in modes]
        self.capture_enabled_for_nc = str(capture_enabled_for_nc)
        self.correlate_device_time = bool(correlate_device_time)
        self.profile_output_dir = str(profile_output_dir)
        _C.set_neuron_config([m.value for m in self.modes], self.capture_enabled_for_nc,
                             self.correlate_device_time, self.profile_output_dir, True)


def reset_neuron_config():
    """Back to the default: capture on every core, no files written."""
    _C.set_neuron_config(["DEVICE", "RUNTIME"], "", True, "./profile_output", False)


class NeuronProfiler:
    """on_trace_ready handler: torch's Kineto trace as kineto_trace.json next
    to the simulator's trace.json in cfg.profile_output_dir."""

    def __init__(self, config):
        self.config = config
        self.traces = []

    def export_trace(self, prof):
        os.makedirs(self.config.profile_output_dir, exist_ok=True)
        path = os.path.join(self.config.profile_output_dir, "kineto_trace.json")
        prof.export_chrome_trace(path)
        self.traces.append(path)


reset_neuron_config()
