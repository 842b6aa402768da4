"""`nki_cpu_simulator`, the module name the NKI Library's test harness imports in its simulation
mode (test/utils/simulation_setup.py), served by nsim: `nki_cpu_simulator.nki` is nsim.nki, and
`nki.cpu_simulate(kernel)[lnc](**inputs)` runs the kernel on nsim, timed. Each run's device time
is appended (JSON lines: the pytest test id, the time) to $NSIM_NKILIB_TIMES when that is set.
Used by tools/nki_library/run.py only."""
import json
import os
import sys
import types

import nsim.nki as _nki
from nsim.nki import collectives, compiler, constants, isa, language, nki_typing

def _record(device_time_ns):
    path = os.environ.get("NSIM_NKILIB_TIMES")
    if path:
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" (", 1)[0]
        with open(path, "a") as f:
            f.write(json.dumps({"test": test, "device_time_ns": device_time_ns}) + "\n")


class _CpuSimulate:
    def __init__(self, kernel, grid=None):
        self.kernel, self.grid = kernel, grid

    def __getitem__(self, grid):
        return _CpuSimulate(self.kernel, grid)

    def __call__(self, *args, **kwargs):
        kernel = _nki.jit(self.kernel) if not isinstance(self.kernel, _nki.Kernel) else self.kernel
        if self.grid not in (None, 1):
            kernel = kernel[self.grid]
        config = _CONFIGS.get(os.environ.get("NKI_NC_VERSION", ""))
        # nsim_config=: the kernel's own parameters may be named `config` (topk's is)
        result = _nki.benchmark(kernel, *args, **kwargs, **({"nsim_config": config} if config else {}))
        _record(result.device_time_ns)
        return result.outputs


_CONFIGS = {"gen2": "trn1", "gen3": "trn2", "gen4": "trn3"}  # the harness's NKI_NC_VERSION -> nsim config


def cpu_simulate(kernel):
    return _CpuSimulate(kernel)


class _Nki(types.ModuleType):
    """nki_cpu_simulator.nki: nsim.nki, plus cpu_simulate and the submodules the harness imports."""

    def __getattr__(self, name):
        return getattr(_nki, name)


nki = _Nki("nki_cpu_simulator.nki")
nki.cpu_simulate = cpu_simulate
nki.builtin = types.ModuleType("nki_cpu_simulator.nki.builtin")
nki.tensor = types.ModuleType("nki_cpu_simulator.nki.tensor")
nki.tensor.tensor = _nki.tensor
nki.language, nki.isa, nki.typing, nki.compiler, nki.collectives = language, isa, nki_typing, compiler, collectives
language.dtypes = language  # nki.language.dtypes: the dtype names live in nl itself
for _name in ("language", "isa", "isa.constants", "typing", "compiler", "collectives", "builtin", "tensor",
              "language.dtypes"):
    _module = nki
    for _part in _name.split("."):
        _module = getattr(_module, _part) if _part != "constants" else constants
    sys.modules["nki_cpu_simulator.nki." + _name] = _module
sys.modules["nki_cpu_simulator.nki"] = nki
