"""How users run kernels, both generations: `kernel(*args)` / `nki.simulate(kernel)(*args)` /
`nki.simulate(kernel)[lnc](*args)` (0.3+), Beta 1's `simulate_kernel`, `benchmark`, `baremetal`
and `profile` (called or as decorators), and `nsim.nki.benchmark(kernel, *args, config=...)` for
timing on both.

Simulator options (config=, overrides=, out_dir=, emit=, timing_only=) never shadow a kernel
parameter of the same name: the argument goes to the kernel and the option stays reachable as
nsim_config=, nsim_overrides=, ...
"""
import functools
import inspect
import os
import shutil

import numpy as np

from . import jit as _jit
from . import platform
from .errors import KernelError
from .nki_typing import TensorSpec

_RUN_OPTIONS = {"config": None, "overrides": (), "out_dir": None, "emit": None, "timing_only": False,
                "explain": False}
_BETA1_DECORATOR_OPTIONS = ("warmup", "iters", "save_neff_name", "save_trace_name", "additional_compile_opt",
                            "working_directory", "profile_nth", "overwrite", "device_count", "kernel_return",
                            "num_execs", "artifacts_dir", "disable_allocation_opt")


def _kernel_params(kernel):
    fn = getattr(kernel, "fn", kernel)
    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return set()


def _options(kernel, kwargs, names):
    """Pops the simulator options `names` out of kwargs (a kernel parameter's name stays the kernel's)."""
    params = _kernel_params(kernel)
    opts = {n: _RUN_OPTIONS[n] for n in names}
    for name in names:
        if "nsim_" + name in kwargs:
            opts[name] = kwargs.pop("nsim_" + name)
        elif name in kwargs and name not in params:
            opts[name] = kwargs.pop(name)
    opts["config"] = opts.get("config") or platform.default_config()
    return opts


def _host(value):
    """A torch CPU tensor as a NumPy array sharing its memory (outputs written in place reach it);
    a TensorSpec (nt.tensor[shape, dtype]) as zeros."""
    if isinstance(value, TensorSpec):
        return value.zeros()
    if not _is_torch(value):
        return value
    t = value.detach()
    if getattr(t, "device", None) is not None and t.device.type != "cpu":
        raise KernelError("a torch tensor on device '%s' was passed to a kernel: pass CPU tensors (the simulator "
                          "copies them in and out)" % t.device)
    if str(t.dtype) == "torch.bfloat16":
        import ml_dtypes
        import torch
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _run(kernel, args, kwargs, names):
    if isinstance(kernel, _Beta1Run):  # simulate_kernel(baremetal(k), ...): Beta 1 tests do this
        kernel = kernel.kernel
    kwargs = dict(kwargs)
    opts = _options(kernel, kwargs, names)
    if any(isinstance(v, TensorSpec) for v in (*args, *kwargs.values())):
        opts["timing_only"] = True  # no values were given, so none are computed
    args = tuple(_host(a) for a in args)
    kwargs = {k: _host(v) for k, v in kwargs.items()}
    name = getattr(getattr(kernel, "fn", kernel), "__name__", "kernel")
    out_dir = opts.get("out_dir") or platform.profile_dir(name)
    return _jit._run(kernel, args, kwargs, opts["config"], opts.get("overrides", ()), out_dir, opts.get("emit"),
                     opts.get("timing_only", False), opts.get("explain", False)), opts


def simulate_kernel(kernel, *args, **kwargs):
    """Runs the kernel on the simulator (config= default: platform.default_config()); returns its outputs
    as NumPy arrays, or as torch tensors when it was given torch tensors (as a kernel called on a
    Neuron device returns that device's tensors)."""
    (_, _, outputs), _ = _run(kernel, args, kwargs, ("config", "overrides"))
    if any(_is_torch(v) for v in (*args, *kwargs.values())):
        return _to_torch(outputs)
    return outputs


def _is_torch(value):
    return not isinstance(value, np.ndarray) and hasattr(value, "detach") and hasattr(value, "numpy")


def _to_torch(outputs):
    if isinstance(outputs, (tuple, list)):
        return type(outputs)(_to_torch(o) for o in outputs)
    if not isinstance(outputs, np.ndarray):
        return outputs
    import torch
    if outputs.dtype.name == "bfloat16":
        return torch.from_numpy(outputs.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(outputs)


def _benchmark_run(kernel, args, kwargs):
    (traced, raw, outputs), opts = _run(kernel, args, kwargs, tuple(_RUN_OPTIONS))
    grid = getattr(kernel, "grid", None)
    if grid:
        return _jit.GridBenchmarkResult(traced, raw, outputs, opts["config"], grid)
    return _jit.BenchmarkResult(traced, raw, outputs, opts["config"])


def benchmark(kernel=None, *args, **kwargs):
    """nsim.nki.benchmark(kernel, *args, config=..., out_dir=..., emit=..., timing_only=...): a
    BenchmarkResult (device_time_us, outputs, summary).
    out_dir gets what `nsim run --out` writes: trace.json, summary.{json,txt}, report.html,
    instructions.csv and <hash>.neff/.ntff;
    emit="k.nk" writes the kernel text that `nsim run k.nk` replays;
    timing_only=True times the kernel without computing values (`nsim run --timing-only`):
    the same device time, records and files, much faster; outputs is then None.
    explain=True keeps the compiler model's decisions in result.decisions (per tile: buffers;
    per DMA: engine and queue; hoisted instructions; which passes ran), nsim/nki/passes.
    kernel[grid]: an SPMD launch on one chip; returns a GridBenchmarkResult, and out_dir gets
    the kernel text and grid.json (the report of `nsim run k.nk --grid N --json`).
    Beta 1's decorator forms
    `nki.benchmark(warmup=, iters=, ...)(kernel)` / `@nki.benchmark` return a kernel that, called,
    runs and keeps `.benchmark_result.nc_latency.get_latency_percentile(p)` (microseconds; the
    simulator is deterministic, so every percentile is the one device time)."""
    if kernel is None or (not args and set(kwargs) <= set(_BETA1_DECORATOR_OPTIONS)):
        return _decorator(_Beta1Benchmark, kernel, kwargs)
    return _benchmark_run(kernel, args, kwargs)


class _Latency:
    def __init__(self, result):
        self.result = result

    def get_latency_percentile(self, percentile):
        return self.result.device_time_us


class _Beta1Run:
    """A Beta 1 decorated kernel (baremetal / benchmark / profile): calling it runs the simulator."""

    def __init__(self, kernel, options):
        self.kernel, self.options = _jit._as_kernel(kernel), options
        if options.get("disable_allocation_opt"):  # Beta 1: the allocation passes off (passes/buffer_rule.py)
            self.kernel.nki_options = dict(getattr(self.kernel, "nki_options", {}), disable_allocation_opt=True)
        functools.update_wrapper(self, self.kernel, updated=())
        self.benchmark_result = None

    def __call__(self, *args, **kwargs):
        return simulate_kernel(self.kernel, *args, **kwargs)

    def __getitem__(self, grid):
        return type(self)(self.kernel[grid], self.options)


class _Beta1Benchmark(_Beta1Run):
    def __call__(self, *args, **kwargs):
        result = _benchmark_run(self.kernel, args, kwargs)
        result.nc_latency = _Latency(result)
        self.benchmark_result = result
        return result.outputs


class _Beta1Profile(_Beta1Run):
    def __call__(self, *args, **kwargs):
        directory = self.options.get("working_directory")
        if directory and not self.options.get("overwrite", False):
            _refuse_overwrite(directory, self.options)
        kwargs.setdefault("nsim_out_dir", directory)
        result = _benchmark_run(self.kernel, args, kwargs)
        self.benchmark_result = result
        if directory:
            _name_artifacts(directory, self.options, result.kernel_hash)
        return result.outputs


def _profiled_executions(options):
    """The executions Beta 1's profile captures: every profile_nth-th of num_execs (at least one)."""
    nth, execs = int(options.get("profile_nth", 1)), int(options.get("num_execs", 1))
    return list(range(nth, execs + 1, nth)) or [nth]


def _trace_file(options, execution):
    stem = os.path.splitext(os.path.basename(options.get("save_trace_name") or "profile.ntff"))[0]
    return "%s.ntff" % stem if execution == 1 else "%s_exec_%d.ntff" % (stem, execution)


def _beta1_artifacts(options):
    neff = os.path.basename(options.get("save_neff_name") or "file.neff")
    return [neff] + [_trace_file(options, n) for n in _profiled_executions(options)]


def _refuse_overwrite(directory, options):
    there = [f for f in _beta1_artifacts(options) if os.path.exists(os.path.join(directory, f))]
    if there:
        raise KernelError("nki.profile: %s already in %s; pass overwrite=True to replace it"
                          % (", ".join(there), directory))


def _name_artifacts(directory, options, kernel_hash):
    """Beta 1's names for what the run wrote: save_neff_name, save_trace_name per profiled execution
    (<stem>_exec_N.ntff), json_reports/ with a summary per profiled execution. The simulator is
    deterministic, so every execution's trace and summary are the same."""
    neff, *traces = _beta1_artifacts(options)
    hashed_neff, hashed_ntff = (os.path.join(directory, "%s.%s" % (kernel_hash, ext)) for ext in ("neff", "ntff"))
    os.replace(hashed_neff, os.path.join(directory, neff))
    reports = os.path.join(directory, "json_reports")
    os.makedirs(reports, exist_ok=True)
    for trace, execution in zip(traces, _profiled_executions(options)):
        shutil.copyfile(hashed_ntff, os.path.join(directory, trace))
        shutil.copyfile(os.path.join(directory, "summary.json"),
                        os.path.join(reports, "%s.json" % os.path.splitext(trace)[0]))
    os.remove(hashed_ntff)


def _decorator(cls, kernel, options):
    unknown = set(options) - set(_BETA1_DECORATOR_OPTIONS)
    if unknown:
        raise KernelError("%s: unknown options %s" % (cls.__name__.lstrip("_"), ", ".join(sorted(unknown))))
    if kernel is None:
        return lambda k: cls(k, options)
    return cls(kernel, options)


def baremetal(kernel=None, **options):
    """Beta 1 `nki.baremetal`: the decorated kernel runs on the simulator and returns its outputs."""
    return _decorator(_Beta1Run, kernel, options)


def profile(kernel=None, **options):
    """Beta 1 `nki.profile(working_directory=...)`: runs and writes the profile (trace.json, summary,
    NEFF/NTFF) into working_directory."""
    return _decorator(_Beta1Profile, kernel, options)


class _Simulate:
    def __init__(self, kernel):
        self.kernel = _jit._as_kernel(kernel)

    def __call__(self, *args, **kwargs):
        return simulate_kernel(self.kernel, *args, **kwargs)

    def __getitem__(self, grid):
        return _Simulate(self.kernel[grid])


def simulate(kernel):
    """nki.simulate(kernel)(*args) / nki.simulate(kernel)[lnc](*args): the kernel's outputs, computed on the
    simulator (timed too: nsim.nki.benchmark)."""
    return _Simulate(kernel)
