"""Replays the NKI emitter fuzz target's seeds and regressions (fuzz/nki_emitter_fuzz.py):
each input traces to a kernel whose text parses and formats to a fixed point, or
raises the frontend's KernelError (never another exception)."""
import os
import sys

import pytest
from nki_testing import ROOT

import nsim.nki as nki
import nsim.nki.language as nl

sys.path.insert(0, os.path.join(ROOT, "fuzz"))
import nki_emitter_fuzz  # noqa: E402

DIRS = [os.path.join(ROOT, "fuzz", "nki_emitter_seeds"), os.path.join(ROOT, "fuzz", "regressions", "nki_emitter")]
INPUTS = sorted(os.path.join(d, f) for d in DIRS for f in os.listdir(d))


@pytest.mark.parametrize("path", INPUTS, ids=[os.path.basename(p) for p in INPUTS])
def test_replay(path):
    with open(path, "rb") as f:
        nki_emitter_fuzz.check(f.read())


def test_seeds_trace_to_kernels():
    """The seeds are kernels that trace (a corpus of errors only would not get deep)."""
    seeds = [p for p in INPUTS if os.sep + "nki_emitter_seeds" + os.sep in p]
    assert len(seeds) >= 16
    for path in seeds:
        with open(path, "rb") as f:
            assert nki_emitter_fuzz.check(f.read()), path


def test_check_catches_a_crash(monkeypatch):
    """The invariant fails on a frontend crash: an AttributeError is not a KernelError."""
    def broken(*args, **kwargs):
        raise AttributeError("boom")
    monkeypatch.setattr(nki.jit(lambda a: a).__class__, "trace", broken)
    with open(INPUTS[0], "rb") as f:
        with pytest.raises(AttributeError):
            nki_emitter_fuzz.check(f.read())


@pytest.mark.parametrize("axis", [None, 1.5, "x", (), 5, -3])
def test_reduce_bad_axis_is_a_kernel_error(axis, rng):
    """Found by the fuzzer: nl.sum(t, axis=None) raised TypeError from the frontend."""
    @nki.jit
    def k(a):
        out = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.sum(nl.load(a), axis=axis, keepdims=True))
        return out
    with pytest.raises(nki.KernelError, match="axis="):
        k.trace((rng.standard_normal((4, 8)).astype("float32"),), {}, "trn2")
