"""nsim.nki: write NKI kernels, run them on the nsim simulator.

    import nsim.nki as nki
    import nsim.nki.language as nl
    import nsim.nki.isa as nisa

Kernels port from NKI by changing these imports. See README "NKI kernels".
"""
from . import isa, language  # noqa: F401
from .errors import KernelError, Unsupported  # noqa: F401
from .jit import BenchmarkResult, Kernel, benchmark, jit, simulate_kernel  # noqa: F401
