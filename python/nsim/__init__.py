"""nsim: Python access to the nsim Trainium NeuronCore simulator.

`nsim.nki` is an NKI-style kernel frontend (see README "NKI kernels"). The
simulator itself is C++, reached through the extension `_nsim_core`
(`bazel build //python:_nsim_core.so`).
"""
__all__ = ["nki"]
