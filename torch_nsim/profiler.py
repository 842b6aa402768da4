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
trace there as ``kineto_trace.json`` and Neuron Explorer's Parquet tables
(nsim.profile_tables). Without a NeuronConfig, device capture is on for every
core and nothing is written.

Every op the simulator's profiler records carries the user's Python frames
that called it (user_stack below): each instruction of the kernel the op ran
names that op (``aten_op``) and those frames (``source``, ``source_stack``)
in trace.json, instructions.csv, the tables and report.html's source view
(docs/profile-tables.md).
"""
import enum
import os
import sys
import sysconfig

import torch
from torch._C._profiler import _ExperimentalConfig

from torch_nsim import _C


# Frames in these are library code, not the user's: torch and the other
# installed packages, the standard library, and this package's own modules
# (not its tests).
_LIBRARY_PREFIXES = tuple(sorted({os.path.realpath(p) + os.sep for p in (
    os.path.dirname(torch.__file__), sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
    sysconfig.get_paths()["platlib"])}))
_PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))
_IS_LIBRARY = {}  # code object -> whether it is library code


def _is_library(code):
    library = _IS_LIBRARY.get(code)
    if library is None:
        # "<frozen runpy>", "<eval_with_key>.3" (torch.fx), "<string>": generated, never a user's file.
        path = code.co_filename
        real = os.path.realpath(path)
        library = path.startswith("<") or real.startswith(_LIBRARY_PREFIXES) or os.path.dirname(real) == _PACKAGE_DIR
        _IS_LIBRARY[code] = library
    return library


def user_stack():
    """The user's code calling into torch here, innermost frame first, as
    'FILE:LINE FUNCTION < FILE:LINE FUNCTION ...': the frames from the
    innermost one outside the libraries up to the next library frame. On
    autograd's backward threads, where no Python called the op, the user's
    code is the line that called backward() (or autograd.grad)."""
    f = sys._getframe(0).f_back  # None on a thread with no Python caller (autograd's backward threads)
    if f is None:
        f = _backward_caller_frame()
    frames = []
    while f is not None:
        if not _is_library(f.f_code):
            frames.append("%s:%d %s" % (f.f_code.co_filename, f.f_lineno, f.f_code.co_name))
        elif frames:
            break
        f = f.f_back
    return " < ".join(frames)


def _backward_caller_frame():
    """The innermost frame of the thread waiting in autograd's engine (it released the GIL
    there, so this thread can read its stack); the lowest thread id wins if several are."""
    for _, frame in sorted(sys._current_frames().items()):
        f = frame
        while f is not None:
            if f.f_code.co_name == "_engine_run_backward":
                return frame
            f = f.f_back
    return None


_C.set_user_stack_function(user_stack)


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
    to the simulator's trace.json in cfg.profile_output_dir, and, when DEVICE
    mode captured instructions there, Neuron Explorer's Parquet tables."""

    def __init__(self, config):
        self.config = config
        self.traces = []

    def export_trace(self, prof):
        os.makedirs(self.config.profile_output_dir, exist_ok=True)
        path = os.path.join(self.config.profile_output_dir, "kineto_trace.json")
        prof.export_chrome_trace(path)
        self.traces.append(path)
        if os.path.exists(os.path.join(self.config.profile_output_dir, "instructions.csv")):
            _profile_tables().write(self.config.profile_output_dir)


def _profile_tables():
    try:
        from nsim import profile_tables  # needs pyarrow; imported only when a profile has instructions
    except ImportError as e:
        raise ImportError("NeuronProfiler writes Neuron Explorer's Parquet tables with the nsim package's "
                          "profile_tables (bash tools/setup.sh installs nsim and pyarrow): %s" % e) from e
    return profile_tables


reset_neuron_config()
