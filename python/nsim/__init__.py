"""nsim: Python access to the nsim Trainium NeuronCore simulator.

`nsim.nki` is an NKI-style kernel frontend (see README "NKI kernels"). The
simulator itself is C++, reached through the extension `_nsim_core`
(//python:_nsim_core.so, copied into the package when it is installed:
docs/python-packages.md).
"""
__all__ = ["nki", "sweep"]
__version__ = "0.1.0"  # pyproject.toml reads it from here


def sweep(spec, **options):
    """Runs a sweep spec (a YAML path or its text); returns a pandas DataFrame. See docs/sweep.md."""
    from nsim.sweeps.api import sweep as run
    return run(spec, **options)
