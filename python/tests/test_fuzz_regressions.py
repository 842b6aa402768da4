"""Replays the NKI emitter fuzz target's seeds and regressions (fuzz/nki_emitter_fuzz.py):
each input traces to a kernel whose text parses and formats to a fixed point, or
raises the frontend's KernelError (never another exception)."""
import os
import sys

import numpy as np
import pytest
from nki_testing import ROOT

import nsim.nki as nki
import nsim.nki.isa as nisa
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


BAD_CALLS = {  # each raised TypeError/ValueError/UnboundLocal from inside the frontend before
    "zeros_int_shape": lambda a: nl.zeros(4, nl.float32),
    "zeros_float_shape": lambda a: nl.zeros((2.5, 4), nl.float32),
    "hbm_str_shape": lambda a: nl.ndarray(("x", 4), nl.float32, buffer=nl.shared_hbm),
    "hbm_negative_shape": lambda a: nl.ndarray((-1, 4), nl.float32, buffer=nl.shared_hbm),
    "arange_str": lambda a: nl.load(a[nl.arange(0, "x")]),
    "arange_step_0": lambda a: nl.load(a[nl.arange(0, 2, 0)]),
    "mgrid_open_stop": lambda a: nl.load(a[nl.mgrid[0:8, :]]),
    "mgrid_not_a_slice": lambda a: nl.load(a[nl.mgrid[0:8, 3]]),
    "affine_range_float": lambda a: [nl.load(a) for _ in nl.affine_range(2.5)],
    "sequential_range_str": lambda a: [nl.load(a) for _ in nl.sequential_range("x")],
    "static_range_step_0": lambda a: [nl.load(a) for _ in nl.static_range(0, 2, 0)],
    "memset_str": lambda a: nisa.memset((4, 4), "x", nl.float32),
    "full_none": lambda a: nl.full((4, 4), None, nl.float32),
    "dma_queue_str": lambda a: nisa.dma_copy(nl.ndarray((8, 8), nl.float32, buffer=nl.shared_hbm), nl.load(a),
                                             queue="x"),
    "reshape_int": lambda a: nl.load(a.reshape(64)),
    "reshape_negative": lambda a: nl.load(a.reshape((-8, -8))),
    "num_buffers_str": lambda a: nl.load(a, num_buffers="x"),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_call_is_a_kernel_error(name):
    """Found while fuzzing the emitter: bad arguments are the author's KernelError at their line."""
    def k(a):
        BAD_CALLS[name](a)
        out = nl.ndarray((8, 8), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a))
        return out
    with pytest.raises(nki.KernelError) as e:
        nki.jit(k).trace((np.zeros((8, 8), np.float32),), {}, "trn2")
    assert e.value.filename == __file__, e.value  # reported at the kernel's line, not the frontend's


def test_numpy_integer_shapes_still_work():
    @nki.jit
    def k(a):
        t = nl.zeros((np.int64(8), np.int32(8)), nl.float32)
        out = nl.ndarray((np.int64(8), 8), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.add(nl.load(a), t))
        return out
    a = np.ones((8, 8), np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(k, a), a)
