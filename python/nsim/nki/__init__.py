"""nsim.nki: write NKI kernels, run them on the nsim simulator.

    import nsim.nki as nki
    import nsim.nki.language as nl
    import nsim.nki.isa as nisa

or leave the kernel file as written for NKI and call `nsim.nki.install()` first (or run it with
`python3 -m nsim.nki FILE.py`): `nki.*` (0.3+) and Beta 1's `neuronxcc.nki.*` then resolve here.
See docs/nki-generations.md (both generations), docs/nki-api.md (what is modelled).
"""
from . import collectives, compiler, constants, isa, language, lnc, nki_typing  # noqa: F401
from .dtypes import DType as dtype  # noqa: F401  (the annotation name nki.dtype)
from .entry import baremetal, benchmark, profile, simulate, simulate_kernel  # noqa: F401
from .errors import KernelError, Unsupported  # noqa: F401
from .install import install, uninstall  # noqa: F401
from .jit import BenchmarkResult, Kernel, jit  # noqa: F401
from .language import NKIObject  # noqa: F401
from .views import View as tensor  # noqa: F401  (the annotation name nki.tensor)

typing = nki_typing
isa.constants = constants
