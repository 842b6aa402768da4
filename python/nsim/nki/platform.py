"""Which config a kernel runs on when the caller names none, and where each run's profile goes:
the environment switches an unmodified NKI script is steered with.

NEURON_PLATFORM_TARGET_OVERRIDE (read as NKI reads it: trn1, trn2, trn3, optionally with a suffix
such as trn2n or "trn2-..."): the config; default trn2, the NKI Library tests' default target.
NSIM_PROFILE_DIR: every simulated call writes its profile (what `benchmark(out_dir=...)` writes)
into <dir>/<kernel>_<n>/."""
import itertools
import os
import re

from .. import _core
from . import constants

_TARGET_ENV = "NEURON_PLATFORM_TARGET_OVERRIDE"
_PROFILE_ENV = "NSIM_PROFILE_DIR"
_NC_VERSION = {"trn1": constants.nc_version.gen2, "trn2": constants.nc_version.gen3,
               "trn3": constants.nc_version.gen4}
_runs = itertools.count()


def default_config():
    target = os.environ.get(_TARGET_ENV, "").strip().lower()
    m = re.match(r"(trn[123])", target)
    return m.group(1) if m else "trn2"


def default_info():
    return _core.core().config_info(default_config(), [])


def nc_version(config_name):
    """The NeuronCore generation of a config (trn1 -> gen2, trn2 -> gen3, trn3 -> gen4)."""
    m = re.match(r"(trn[123])", config_name)
    return _NC_VERSION[m.group(1)] if m else constants.nc_version.gen3


def profile_dir(kernel_name):
    """A fresh profile directory for one simulated call, or None when NSIM_PROFILE_DIR is unset."""
    root = os.environ.get(_PROFILE_ENV)
    if not root:
        return None
    return os.path.join(root, "%s_%d" % (kernel_name, next(_runs)))
