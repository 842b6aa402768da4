"""SPMD launch (kernel[grid]) with nl.program_id / nl.num_programs, run on the chip model."""
import json
import os
import subprocess

import numpy as np
import pytest
from nki_testing import ROOT

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl

NSIM = os.path.join(ROOT, "bazel-bin", "tools", "nsim")


@nki.jit
def vector_add_spmd(a, b):
    """Each program adds its own block of rows (NKI's SPMD tutorial pattern)."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    rows = a.shape[0] // nl.num_programs()
    base = nl.program_id(0) * rows
    for i in nl.affine_range(rows // 128):
        lo = base + i * 128
        ta = nl.load(a[lo:lo + 128, :])
        tb = nl.load(b[lo:lo + 128, :])
        nl.store(out[lo:lo + 128, :], value=nl.add(ta, tb))
    return out


@nki.jit
def vector_add_one(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        nl.store(out[i * 128:(i + 1) * 128, :],
                 value=nl.add(nl.load(a[i * 128:(i + 1) * 128, :]), nl.load(b[i * 128:(i + 1) * 128, :])))
    return out


@nki.jit
def block_copy(a):
    """Program p copies rows [128p, 128p + 128) of a."""
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    p = nl.program_id(0)
    nl.store(out, value=nl.load(a[p * 128:(p + 1) * 128, :]))
    return out


@pytest.mark.parametrize("programs", [2, 4])
def test_vector_add_split_by_program_id_matches_numpy(rng, programs):
    a = rng.standard_normal((128 * 2 * programs, 256)).astype(np.float32)
    b = rng.standard_normal(a.shape).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(vector_add_spmd[programs], a, b, config="trn2"), a + b)
    np.testing.assert_array_equal(vector_add_spmd[programs](a, b), a + b)  # kernel[grid](args)


def test_kernel_text_carries_program_id_expressions_and_replays(rng, tmp_path):
    a = rng.standard_normal((512, 64)).astype(np.float32)
    r = nki.benchmark(vector_add_spmd[2], a, a, emit=str(tmp_path / "k.nk"), out_dir=str(tmp_path / "prof"))
    text = (tmp_path / "k.nk").read_text()
    assert "a.ap(((program_id * (512 / num_programs)) * 64)" in text
    assert text == r.kernel_text
    assert json.loads((tmp_path / "prof" / "grid.json").read_text())["device_time_ns"] == r.device_time_ns
    assert os.path.exists(NSIM), "build the CLI first: bazel build //tools:nsim"
    out = subprocess.run([NSIM, "run", str(tmp_path / "k.nk"), "--grid", "2", "--config", "trn2", "--json"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    assert json.loads(out)["device_time_ns"] == r.device_time_ns


def test_independent_programs_take_one_cores_time(rng):
    """Two programs, each adding half the rows, on cores 0 and 1 of trn2: both cores' home stack is
    stack 0 (2 cores per stack), where the tensors live, and each core gets its share of that stack
    as a single-core run does. So the grid takes exactly what one core takes for half the rows
    (measured: 5.935 us for 2 x 512 x 128 f32), and the chip time is the slowest core's."""
    a = rng.standard_normal((1024, 128)).astype(np.float32)
    b = rng.standard_normal(a.shape).astype(np.float32)
    grid = nki.benchmark(vector_add_spmd[2], a, b, config="trn2")
    assert [c["core"] for c in grid.cores] == [0, 1]
    per_core = [c["report"]["device_time_ns"] for c in grid.cores]
    assert grid.device_time_ns == max(per_core)
    np.testing.assert_array_equal(grid.outputs, a + b)
    single = nki.benchmark(vector_add_one, a[:512], b[:512], config="trn2")
    assert grid.device_time_ns == pytest.approx(single.device_time_ns, rel=1e-9)
    whole = nki.benchmark(vector_add_one, a, b, config="trn2")
    assert whole.device_time_ns > 1.4 * grid.device_time_ns


def test_two_axis_grid(rng):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        r, c = nl.program_id(0), nl.program_id(1)
        assert nl.num_programs(0) == 2 and nl.num_programs(1) == 2 and nl.program_ndim() == 2
        t = nl.load(a[r * 128:(r + 1) * 128, c * 64:(c + 1) * 64])
        nl.store(out[r * 128:(r + 1) * 128, c * 64:(c + 1) * 64], value=nl.multiply(t, 2.0))
        return out
    a = rng.standard_normal((256, 128)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(k[2, 2], a), a * 2)


def test_program_id_outside_a_grid_is_program_zero(rng):
    a = rng.standard_normal((256, 64)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(block_copy, a), a[:128])


def test_timing_only_grid_is_unsupported(rng):
    a = rng.standard_normal((512, 64)).astype(np.float32)
    with pytest.raises(nki.Unsupported, match="timing_only is not supported for SPMD grids"):
        nki.benchmark(vector_add_spmd[2], a, a, timing_only=True)


def test_bad_grid_is_a_clear_error():
    with pytest.raises(nki.KernelError, match="positive integers"):
        vector_add_spmd[0]
    with pytest.raises(nki.KernelError, match="positive integers"):
        vector_add_spmd[2.5]


def test_programs_may_branch_on_program_id():
    """Each program traces on its own (the NKI Library's LNC=2 paths branch on program_id); both run."""
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        half = a.shape[0] // 2
        pid = nl.program_id(0)
        t = nl.load(a[pid * half:(pid + 1) * half])
        if pid == 0:
            t = nl.multiply(t, 2.0)
        nl.store(out[pid * half:(pid + 1) * half], value=t)
        return out
    a = np.arange(128 * 64, dtype=np.float32).reshape(128, 64)
    expect = a.copy()
    expect[:64] *= 2
    np.testing.assert_array_equal(nki.simulate_kernel(k[2], a), expect)


@nki.jit
def rows_per_program(a):
    """The NKI Library's sharding: program p takes rows [p * n // P, ...), the last one the remainder, so
    with fewer rows than programs a program gets nl.ds(offset, 0): an empty view, and nothing to do."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    programs, p = nl.num_programs(0), nl.program_id(0)
    per = a.shape[0] // programs
    mine = a.shape[0] - p * per if p == programs - 1 else per
    rows, out_rows = a[nl.ds(p * per, mine)], out[nl.ds(p * per, mine)]
    for i in range(mine):
        nl.store(out_rows[i:i + 1], value=nl.multiply(nl.load(rows[i:i + 1]), 3.0))
    return out


def test_a_program_with_no_rows_takes_an_empty_view_and_does_nothing():
    a = np.arange(64, dtype=np.float32).reshape(1, 64)
    np.testing.assert_array_equal(nki.simulate_kernel(rows_per_program[2], a), 3 * a)


def test_a_grid_whose_programs_all_do_nothing_is_an_error():
    @nki.jit
    def k(a):
        return a
    with pytest.raises(nki.KernelError, match=r"does nothing on any program of grid \(2,\)"):
        nki.simulate_kernel(k[2], np.ones((128, 64), np.float32))


def test_an_instruction_on_an_empty_view_names_it():
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[0:0], src=a[0:0])
        return out
    with pytest.raises(nki.KernelError, match=r"test_spmd.py:\d+: the access to tensor '\w+' is empty \(shape \[0, 64\]\)"):
        nki.simulate_kernel(k, np.ones((128, 64), np.float32))


def test_programs_must_declare_the_same_hbm_tensors():
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm, name="o%d" % nl.program_id(0))
        nl.store(out, value=nl.load(a))
        return out
    with pytest.raises(nki.KernelError, match="program 1 declares other HBM tensors than program 0"):
        nki.simulate_kernel(k[2], np.ones((128, 64), np.float32))


def test_bad_program_id_axis(rng):
    @nki.jit
    def k(a):
        nl.program_id(1)
    with pytest.raises(nki.KernelError, match=r"nl.program_id\(1\): the launch grid \(2,\) has axes 0..0"):
        nki.simulate_kernel(k[2], np.ones((128, 64), np.float32))


def test_index_out_of_bounds_for_one_program_names_it():
    with pytest.raises(nki.KernelError, match=r"program 2 of grid \(3,\): slice 256:384 out of bounds"):
        nki.simulate_kernel(block_copy[3], np.ones((256, 64), np.float32))


def test_a_grid_larger_than_the_chip_runs_in_waves():
    """Bug fix: a grid with more programs than NeuronCores (a 2x2 grid on trn1's 2 cores, the tutorial's
    10 programs on trn2's 8) was rejected. Programs run in waves of one per core; HBM carries over."""
    @nki.jit
    def rows(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        p = nl.program_id(0)
        nl.store(out[p * 32:(p + 1) * 32], value=nl.load(a[p * 32:(p + 1) * 32]))
        return out
    a = np.arange(12 * 32 * 4, dtype=np.float32).reshape(12 * 32, 4)
    got = nki.benchmark(rows[12], a, config="trn2")  # 8 cores: a wave of 8, then one of 4
    np.testing.assert_array_equal(got.outputs, a)
    assert [c["wave"] for c in got.cores] == [0] * 8 + [1] * 4 and [c["program"] for c in got.cores] == list(range(12))
    one = nki.benchmark(rows[8], a[:8 * 32], config="trn2")
    assert got.device_time_ns > one.device_time_ns  # the second wave waits for the first

    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        i, j = nl.program_id(0), nl.program_id(1)
        rows = a.shape[0] // 2
        cols = a.shape[1] // 2
        nl.store(out[i * rows:(i + 1) * rows, j * cols:(j + 1) * cols],
                 value=nl.load(a[i * rows:(i + 1) * rows, j * cols:(j + 1) * cols]))
        return out
    b = np.arange(64 * 8, dtype=np.float32).reshape(64, 8)
    np.testing.assert_array_equal(nki.simulate_kernel(k[2, 2], b, config="trn1"), b)


@nki.jit
def through_private_hbm(a):
    """Each program bounces its rows through an nl.private_hbm scratch (the NKI Library's
    reshape_with_dma): every core has its own, so the programs must not see each other's."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    rows = a.shape[0] // nl.num_programs()
    lo = nl.program_id(0) * rows
    scratch = nl.ndarray((rows, a.shape[1]), dtype=a.dtype, buffer=nl.private_hbm)
    nl.store(scratch, value=nl.load(a[lo:lo + rows, :]))
    half = (rows * 2, a.shape[1] // 2)  # a reshaped view of it keeps the program's own copy
    nl.store(out[lo:lo + rows, :].reshape(half), value=nl.load(scratch.reshape(half)))
    return out


@pytest.mark.parametrize("programs", [1, 2, 4])
def test_private_hbm_is_each_programs_own(rng, programs):
    a = rng.standard_normal((8 * programs, 16)).astype(np.float32)
    np.testing.assert_array_equal(through_private_hbm[programs](a), a)
